// The usual visitor helper: `std::visit(Overloaded{[](A&){...}, [](B&){...}}, v)`.
#pragma once

namespace diagd {

template <typename... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <typename... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

}  // namespace diagd
