// starry serve: live refresh and keyboard play. Every page works without
// this script; it only saves a reload and a reach for the mouse.
(function () {
  "use strict";
  var source = null;
  var live = document.body.dataset.live;
  if (live && window.EventSource) {
    source = new EventSource(live);
    // The game (or the list of games) changed on disk: show it as it is.
    source.addEventListener("changed", function () {
      source.close();
      window.location.reload();
    });
  }
  // A form sent changes the log itself: its answer is the next page, not a
  // reload of this one.
  document.addEventListener("submit", function () {
    if (source) {
      source.close();
    }
  });
  document.addEventListener("keydown", function (e) {
    var t = e.target;
    if (e.altKey || e.ctrlKey || e.metaKey || (t && /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) {
      return;
    }
    var go = null;
    if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
      // The history stepper: back and forward.
      go = document.querySelector('a[rel="' + (e.key === "ArrowLeft" ? "prev" : "next") + '"]');
    } else if (/^[1-9]$/.test(e.key)) {
      // The n-th choice of the move being chosen.
      go = document.querySelectorAll("ul.choices a")[Number(e.key) - 1] || null;
    }
    if (go) {
      e.preventDefault();
      window.location.href = go.href;
    }
  });
})();
