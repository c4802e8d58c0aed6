// diagd console (placeholder): the page that will use the API of
// CONTRACT.md section 12.4. It is served from the binary under /ui/, with a
// Content-Security-Policy that allows no inline script, so all of its code
// lives in files like this one. Text from users, models and tools is only
// ever set with textContent, never as HTML.
const status = document.getElementById("status");
status.textContent = "diagd console: the page is on its way; the API is at /api/v1/.";
