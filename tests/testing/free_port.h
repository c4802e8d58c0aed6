// A loopback port for a server process under test whose configuration
// cannot take port 0 (MariaDB, `diagd serve`).
#pragma once

namespace diagd::testing {

// A port on 127.0.0.1 that was free a moment ago (0 when none could be
// had). Another process may take it meanwhile: callers retry on a clash.
int FreeLoopbackPort();

}  // namespace diagd::testing
