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
  // A table scrolls sideways in its own box (biofair.css): a keyboard reaches it and a screen
  // reader names it, in a cell's output or glued outside one.
  for (const box of document.querySelectorAll(".bd-article div.output.text_html")) {
    if (!box.querySelector("table")) continue;
    box.tabIndex = 0;
    box.setAttribute("role", "region");
    box.setAttribute("aria-label", "Table; scroll sideways to see every column");
  }
  // A table with one row label per row keeps those labels in view as it scrolls (biofair.css).
  for (const table of document.querySelectorAll(".bd-article table")) {
    const rows = table.querySelectorAll("tbody tr");
    const labelled = (row) => row.querySelectorAll("th").length === 1 && row.firstElementChild.tagName === "TH";
    if (rows.length && [...rows].every(labelled)) table.classList.add("sticky-index");
  }
  // "Solution to Exercise 1.1": the toggle button says which solution it shows, and the link
  // to the exercise starts at its word (its leading space was underlined).
  for (const title of document.querySelectorAll(".bd-article .solution.dropdown > .admonition-title")) {
    const link = title.querySelector("a");
    if (link && link.firstChild && link.firstChild.nodeType === Node.TEXT_NODE && /^\s/.test(link.firstChild.data)) {
      link.firstChild.data = link.firstChild.data.trimStart();
      link.before(" ");
    }
    const button = title.querySelector("button.toggle-button");
    if (button) button.setAttribute("aria-label", title.textContent.trim().replace(/\s+/g, " "));
  }
  // A glued number ("4.6e-02", "1,234") never breaks at its minus sign; glued text does.
  for (const value of document.querySelectorAll(".bd-article span.pasted-text")) {
    if (!/\s/.test(value.textContent.trim()) && value.textContent.length <= 24) value.classList.add("glued-number");
  }
});
