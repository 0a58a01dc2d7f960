// Optional: pages read fine without it.  The theme toggle pins light or dark (kept in
// localStorage); "copy" buttons copy the clone URL.
(function () {
  var root = document.documentElement;
  var saved = null;
  try { saved = localStorage.getItem("nimbus-theme"); } catch (e) {}
  if (saved === "light" || saved === "dark") root.setAttribute("data-theme", saved);
  document.addEventListener("DOMContentLoaded", function () {
    var toggle = document.getElementById("theme-toggle");
    if (toggle) {
      toggle.hidden = false;
      toggle.addEventListener("click", function () {
        var dark = root.getAttribute("data-theme") === "dark" ||
          (!root.getAttribute("data-theme") && matchMedia("(prefers-color-scheme: dark)").matches);
        var next = dark ? "light" : "dark";
        root.setAttribute("data-theme", next);
        try { localStorage.setItem("nimbus-theme", next); } catch (e) {}
      });
    }
    document.querySelectorAll("[data-copy]").forEach(function (button) {
      button.hidden = false;
      button.addEventListener("click", function () {
        var field = document.getElementById(button.getAttribute("data-copy"));
        if (field && navigator.clipboard) navigator.clipboard.writeText(field.value);
      });
    });
  });
})();

/* issues: the Markdown "Preview" button of the issue and pull request forms posts the
   text to {owner}/{repo}/markup with the form's CSRF token (in the X-Csrf-Token header)
   and shows the rendered HTML, which the server sanitized, below the text area. */
(function () {
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-preview]").forEach(function (button) {
      var field = document.getElementById(button.getAttribute("data-preview"));
      var shown = document.getElementById(button.getAttribute("data-preview") + "-preview");
      var token = button.form && button.form.querySelector("input[name=_csrf]");
      if (!field || !shown || !token || !window.fetch) return;
      button.hidden = false;
      button.addEventListener("click", function () {
        var body = new URLSearchParams();
        body.set("text", field.value);
        fetch(button.getAttribute("data-preview-url"), {
          method: "POST", credentials: "same-origin", body: body,
          headers: {"X-Csrf-Token": token.value}
        }).then(function (answer) {
          return answer.ok ? answer.text() : Promise.reject(answer.status);
        }).then(function (html) {
          shown.innerHTML = html;
          shown.hidden = false;
        }, function () {
          shown.textContent = "The preview could not be loaded.";
          shown.hidden = false;
        });
      });
    });
  });
})();

/* lifecycle: a page that waits for work elsewhere (a migration) reloads itself after
   data-reload-after seconds; its "stop that" link leads to the page without it. */
(function () {
  document.addEventListener("DOMContentLoaded", function () {
    var waiting = document.querySelector("[data-reload-after]");
    var seconds = waiting && parseInt(waiting.getAttribute("data-reload-after"), 10);
    if (seconds > 0) setTimeout(function () { location.reload(); }, seconds * 1000);
  });
})();
