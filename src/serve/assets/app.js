// starry serve: live refresh and keyboard play. Every page works without
// this script; it only saves a reload and a reach for the mouse.
(function () {
  "use strict";
  var live = document.body.dataset.live;
  // Set once the page is being left: no more questions.
  var leaving = false;
  var asking = false;
  // Did the game (or the list of games) change on disk? A short question
  // every two seconds while the page is shown, none while it is hidden:
  // nothing is held open, so any number of tabs share the browser's six
  // connections to this server (docs/serve.md, "Live refresh").
  function ask() {
    if (leaving || asking || document.hidden) {
      return;
    }
    asking = true;
    window.fetch(live, { credentials: "same-origin", cache: "no-store" }).then(
      function (r) {
        asking = false;
        if (r.status === 200 && !leaving) {
          leaving = true;
          remember(REFRESHED);
          window.location.reload();
        } else if (r.status !== 204) {
          // Logged out, or the server is gone: stop asking.
          leaving = true;
        }
      },
      function () {
        asking = false;
      }
    );
  }
  // A mark kept across one reload of this tab; storage may be refused.
  var REFRESHED = "starry-live-refresh";
  function remember(key) {
    try {
      window.sessionStorage.setItem(key, "1");
    } catch (e) {}
  }
  function recall(key) {
    try {
      var had = window.sessionStorage.getItem(key) === "1";
      window.sessionStorage.removeItem(key);
      return had;
    } catch (e) {
      return false;
    }
  }
  // After a live refresh, what the others did is said again: a screen
  // reader announces a live region's change, not what it held at load.
  var happened = document.getElementById("happened");
  if (recall(REFRESHED) && happened && happened.firstChild) {
    var told = Array.prototype.slice.call(happened.childNodes);
    happened.textContent = "";
    window.setTimeout(function () {
      told.forEach(function (n) {
        happened.appendChild(n);
      });
    }, 150);
  }
  if (live && window.fetch) {
    window.setInterval(ask, 2000);
    document.addEventListener("visibilitychange", ask);
  }
  // A form sent changes the log itself: its answer is the next page, not a
  // reload of this one.
  document.addEventListener("submit", function () {
    leaving = true;
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
