// The token prompt: a modal dialog asking for the server's access token.
// Resolves with the token, or null when the user cancels.
import { h } from "./dom.js";
import { t } from "./i18n.js";

let pending = null;

export function askToken(again) {
  if (pending) return pending;
  pending = new Promise((resolve) => {
    const input = h("input", { type: "password", id: "token-input", autocomplete: "off", required: true });
    const form = h("form", { method: "dialog", class: "token-form" },
      h("p", { class: again ? "warn" : "" }, again ? t("token_again") : t("token_needed")),
      h("label", { for: "token-input" }, t("token")),
      input,
      h("div", { class: "buttons" },
        h("button", { type: "submit", value: "ok", class: "primary" }, t("sign_in")),
        h("button", { type: "button", value: "cancel", onclick: () => finish(null) }, t("cancel"))));
    const dialog = h("dialog", { class: "token-dialog", "aria-label": t("token") }, form);
    function finish(value) {
      dialog.close();
      dialog.remove();
      pending = null;
      resolve(value);
    }
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const value = input.value.trim();
      if (value) finish(value);
    });
    dialog.addEventListener("cancel", (event) => { event.preventDefault(); finish(null); });
    document.body.append(dialog);
    dialog.showModal();
    input.focus();
  });
  return pending;
}
