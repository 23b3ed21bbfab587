/* The Encoder Book: long lines of printed output.
 *
 * Every output keeps its lines whole and scrolls sideways when a line is wider than
 * the page (encoder-book.css). A printed table must stay that way, or its columns
 * fall apart. An output that is not a table (a long message, a list of tokens, an
 * error) reads better wrapped, so an output box that overflows and has no line
 * with aligned columns (two or more spaces, or a tab, between two words) gets the
 * class "encoder-book-wrap" and wraps. Without JavaScript, outputs scroll. */
(function () {
  "use strict";
  var COLUMNS = /\S(?: {2,}|\t)\S/;

  function isTable(text) {
    return text.split("\n").some(function (line) {
      return COLUMNS.test(line);
    });
  }

  function wrapProse() {
    var outputs = document.querySelectorAll("div.cell_output pre");
    for (var i = 0; i < outputs.length; i++) {
      var pre = outputs[i];
      if (pre.scrollWidth > pre.clientWidth && !isTable(pre.textContent)) {
        pre.classList.add("encoder-book-wrap");
      }
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", wrapProse);
  } else {
    wrapProse();
  }
})();
