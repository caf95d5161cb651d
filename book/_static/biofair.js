// What the book's pages do in the reader's browser (tests/browser checks both).
document.addEventListener("DOMContentLoaded", () => {
  // Each figure of a chapter links to its image at full size: on a phone the figure is shrunk
  // to the column, and a tap opens it where it can be zoomed.
  for (const image of document.querySelectorAll(".bd-article .cell_output img")) {
    let link = image.closest("a");  // a numbered figure is already a link to its image
    if (!link) {
      link = document.createElement("a");
      link.href = image.src;
      image.replaceWith(link);
      link.append(image);
    }
    link.title = "Open the figure at full size";
  }
  // A table glued outside a code cell scrolls sideways in its own box (biofair.css): a keyboard
  // reaches it and a screen reader names it, as the theme does for cell outputs.
  for (const box of document.querySelectorAll(".bd-article div.output.text_html")) {
    if (box.closest(".cell_output")) continue;
    box.tabIndex = 0;
    box.setAttribute("role", "region");
    box.setAttribute("aria-label", "Table; scroll sideways to see every column");
  }
  // A glued number ("4.6e-02", "1,234") never breaks at its minus sign; glued text does.
  for (const value of document.querySelectorAll(".bd-article span.pasted-text")) {
    if (!/\s/.test(value.textContent.trim()) && value.textContent.length <= 24) value.classList.add("glued-number");
  }
});
