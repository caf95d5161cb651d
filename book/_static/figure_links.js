// Each figure of a chapter links to its image at full size: on a phone the figure is shrunk to
// the column, and a tap opens it where it can be zoomed. tests/browser checks every chapter.
document.addEventListener("DOMContentLoaded", () => {
  for (const image of document.querySelectorAll(".bd-article .cell_output img")) {
    if (image.closest("a")) continue;
    const link = document.createElement("a");
    link.href = image.src;
    link.title = "Open the figure at full size";
    link.className = "figure-full-size";
    image.replaceWith(link);
    link.append(image);
  }
});
