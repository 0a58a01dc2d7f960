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
