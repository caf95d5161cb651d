// What the book's pages do in the reader's browser (tests/browser checks both).
document.addEventListener("DOMContentLoaded", () => {
  // Each figure of a chapter links to its image at full size: on a phone the figure is shrunk
  // to the column, and a tap opens it where it can be zoomed.
  for (const image of document.querySelectorAll(".bd-article .cell_output img")) {
    if (image.closest("a")) continue;
    const link = document.createElement("a");
    link.href = image.src;
    link.title = "Open the figure at full size";
    image.replaceWith(link);
    link.append(image);
  }
  // A glued number ("4.6e-02", "1,234") never breaks at its minus sign; glued text does.
  for (const value of document.querySelectorAll(".bd-article span.pasted-text")) {
    if (!/\s/.test(value.textContent.trim()) && value.textContent.length <= 24) value.classList.add("glued-number");
  }
});
