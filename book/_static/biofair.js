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
  // reader names it, in a cell's output or glued outside one. Each region has a name of its
  // own (its number in its section, and the section's title): a list of landmarks that all
  // read "Table" does not tell them apart.
  const tablesIn = new Map();
  for (const box of document.querySelectorAll(".bd-article div.output.text_html")) {
    if (!box.querySelector("table")) continue;
    const section = box.closest("section");
    const heading = section && section.querySelector(":scope > :is(h1, h2, h3, h4)");
    const title = (heading ? heading.textContent : document.title).replace(/[#¶]\s*$/, "").trim();
    const number = (tablesIn.get(section) || 0) + 1;
    tablesIn.set(section, number);
    box.tabIndex = 0;
    box.setAttribute("role", "region");
    box.dataset.tableName = `Table ${number} of “${title}”`;
    box.setAttribute("aria-label", box.dataset.tableName);  // says it scrolls when it does (cueScroll)
  }
  // pandas leaves header cells empty (the corner, the index name's row): they head nothing,
  // so they become data cells; an empty row label (a level a row lacks) says so to a reader.
  for (const cell of document.querySelectorAll(".bd-article table thead th")) {
    if (cell.textContent.trim()) continue;
    const data = document.createElement("td");
    for (const attribute of cell.attributes) data.setAttribute(attribute.name, attribute.value);
    cell.replaceWith(data);
  }
  for (const cell of document.querySelectorAll(".bd-article table tbody th")) {
    if (!cell.textContent.trim()) cell.innerHTML = '<span class="visually-hidden">none</span>';
  }
  // A cell of prose (a ledger's reason) gets the width of a short line (biofair.css): squeezed
  // by its numeric neighbours to its longest word, it ran to twenty lines of two words each.
  // A number keeps to one line: squeezed, a column broke "1.000e-4" after its minus sign, and
  // "1.000e-" over "4" read as two values (chapter 3, on a phone and on a desktop alike). So
  // does any other one-word cell, a label or a column's name: chapter 2's row label
  // "tmr_at_fmr_1e-3" broke at its hyphen on a phone ("tmr_at_fmr_1e-" over "3"), chapter 7's
  // column "p-value" and chapter 10's "clopper-pearson" too.
  const NUMBER = /^[-+\u2212]?(\d[\d,]*(\.\d*)?|\.\d+)(e[-+\u2212]?\d+)?%?$/i;
  for (const cell of document.querySelectorAll(".bd-article table :is(td, th)")) {
    const text = cell.textContent.trim();
    if (cell.tagName === "TD" && text.length > 60) cell.classList.add("prose-cell");
    else if (NUMBER.test(text)) cell.classList.add("number-cell");
    else if (text && text.length <= 30 && !/\s/.test(text)) cell.classList.add("word-cell");
  }
  // A label of several words breaks between them only: chapter 3's "FMR group 0 @ 1e-3" broke
  // as "1e-" over "3" on a desktop, chapter 9's "ROC-AUC - TMR at FMR 1e-3" as "ROC-" over
  // "AUC" and "1e-" over "3" on a phone. Each hyphenated word of a label keeps to one line.
  for (const label of document.querySelectorAll(".bd-article table th:not(.word-cell, .number-cell)")) {
    const walk = document.createTreeWalker(label, NodeFilter.SHOW_TEXT), texts = [];
    for (let node = walk.nextNode(); node; node = walk.nextNode()) if (/\S-\S/.test(node.data)) texts.push(node);
    for (const text of texts) {
      text.replaceWith(...text.data.split(/(\S+-\S+)/).map((part, i) => {
        if (i % 2 === 0) return part;
        const word = document.createElement("span");
        word.className = "label-word";
        word.textContent = part;
        return word;
      }).filter((part) => part !== ""));
    }
  }
  // A table's last column of prose (a ledger's reason) reads under its row, as wide as the
  // table's box (biofair.css): beside the numbers, squeezed to a short line, it made a row up
  // to 371 px tall on a phone, its label and values floating in the middle of it. Rows keep
  // their stripes by record, a reason row its row's.
  for (const table of document.querySelectorAll(".bd-article table.dataframe")) {
    const header = table.querySelector("thead tr");
    const rows = [...table.querySelectorAll("tbody tr")];
    const columns = header ? header.children.length : 0;
    const last = (row) => row.lastElementChild;
    if (!rows.length || rows.some((row) => row.children.length !== columns) ||
        !rows.some((row) => last(row).classList.contains("prose-cell")) ||
        !rows.every((row) => last(row).tagName === "TD" && (last(row).classList.contains("prose-cell") || !last(row).textContent.trim())) ||
        rows.some((row) => [...row.children].slice(0, -1).some((cell) => cell.classList.contains("prose-cell")))) continue;
    const name = last(header).textContent.trim();
    for (const row of table.querySelectorAll("thead tr")) last(row).remove();
    rows.forEach((row, index) => {
      const stripe = index % 2 ? "record-even" : "record-odd";
      const cell = last(row);
      row.classList.add(stripe);
      cell.remove();
      if (!cell.textContent.trim()) return;
      const below = document.createElement("tr");
      below.className = `prose-row ${stripe}`;
      const reason = document.createElement("td");
      reason.colSpan = columns - 1;
      const text = document.createElement("div"), label = document.createElement("span");
      label.className = "prose-label";
      label.textContent = `${name}:`;
      text.append(label, " ", ...cell.childNodes);
      reason.append(text);
      below.append(reason);
      row.after(below);
    });
    table.classList.add("prose-below");
  }
  // A table with one row label per row keeps those labels in view as it scrolls (biofair.css).
  for (const table of document.querySelectorAll(".bd-article table")) {
    const rows = table.querySelectorAll("tbody tr:not(.prose-row)");
    const labelled = (row) => row.querySelectorAll("th").length === 1 && row.firstElementChild.tagName === "TH";
    if (rows.length && [...rows].every(labelled)) table.classList.add("sticky-index");
  }
  // So does a table whose row labels are a pandas MultiIndex (several labels per row, the
  // outer ones spanning rows). Either kind, as long as its labels take at most LABELS_SHARE of
  // the box's width: chapter 13's fill 320 of a phone's 358 px, and pinned they would hide
  // every value; chapter 8's, 233 px, leave a full column of values beside them. Each label
  // cell is pinned at its own offset, measured once laid out and again whenever the article
  // changes size; the header cells above the labels go with them.
  const LABELS_SHARE = 2 / 3;
  const scrollBox = (element) => element.closest("div.output.text_html");
  const labelTables = [...document.querySelectorAll(".bd-article table")].filter((table) => {
    const rows = [...table.querySelectorAll("tbody tr:not(.prose-row)")];
    return scrollBox(table) && rows.length && rows.every((row) => row.firstElementChild?.tagName === "TH") &&
           (table.classList.contains("sticky-index") || rows.some((row) => row.querySelectorAll(":scope > th").length > 1));
  });
  for (const table of labelTables) if (!table.classList.contains("sticky-index")) table.classList.add("multi-index");
  const pinLabels = (table) => {
    const box = scrollBox(table);
    table.classList.remove("pinned-labels");
    for (const cell of table.querySelectorAll(".pinned-label")) {
      cell.classList.remove("pinned-label", "last-label");
      cell.style.removeProperty("left");
    }
    if (!box.clientWidth) return;  // not shown (a closed solution): measured once opened
    const origin = box.getBoundingClientRect().left + box.clientLeft - box.scrollLeft;
    let labels = 0;  // the right edge of the label columns, from the box's content edge
    for (const row of table.querySelectorAll("tbody tr")) {
      for (const cell of row.children) {
        if (cell.tagName !== "TH") break;
        labels = Math.max(labels, cell.getBoundingClientRect().right - origin);
      }
    }
    if (!labels || labels > LABELS_SHARE * box.getBoundingClientRect().width) return;
    const cells = [];
    for (const cell of table.querySelectorAll(":is(thead, tbody) > tr > *")) {
      const {left, right} = cell.getBoundingClientRect();
      if (right - origin <= labels + 0.5) cells.push([cell, left - origin, right - origin >= labels - 0.5]);
    }
    for (const [cell, left, last] of cells) {
      cell.classList.add("pinned-label");
      if (last) cell.classList.add("last-label");
      cell.style.left = `${Math.max(0, left)}px`;
    }
    table.classList.add("pinned-labels");
  };
  // Wide formulas and tables say that they go on: a shadow on the side where more of them
  // is hidden (biofair.css), set here as they scroll and whenever the article changes size.
  const cueScroll = (box) => {
    const hidden = box.scrollWidth - box.clientWidth;
    box.classList.toggle("scroll-cue", hidden > 0);
    box.classList.toggle("more-left", hidden > 0 && box.scrollLeft > 0.5);
    box.classList.toggle("more-right", hidden > 0 && box.scrollLeft < hidden - 0.5);
    // its name says it scrolls only when it does: a table that fits (chapter 13's settings,
    // stacked on a phone; most tables on a desktop) was named "scroll sideways to see every column"
    const name = box.dataset.tableName;
    if (name) box.setAttribute("aria-label", hidden > 0 ? `${name}; scroll sideways to see every column` : name);
  };
  const cued = ".bd-article mjx-container, .bd-article div.output.text_html:has(table)";
  document.addEventListener("scroll", (event) => {
    if (event.target instanceof Element && event.target.matches(cued)) cueScroll(event.target);
  }, {capture: true, passive: true});
  const layTables = () => {
    for (const table of labelTables) pinLabels(table);
    for (const box of document.querySelectorAll(cued)) cueScroll(box);
  };
  layTables();
  window.addEventListener("load", layTables);  // images and web fonts in: widths changed
  document.fonts.ready.then(layTables);
  const article = document.querySelector(".bd-article");
  if (article) {
    let pending = false;
    new ResizeObserver(() => {
      if (!pending) requestAnimationFrame(() => { pending = false; layTables(); });
      pending = true;
    }).observe(article);
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
  // Names that match what is shown (WCAG 2.5.3): the "Show code cell source" toggle and the
  // search field ("Search Ctrl + K") were named "Toggle hidden content" and "Search".
  for (const control of document.querySelectorAll("details.hide > summary[aria-label], .search-button-field[aria-label]")) {
    control.removeAttribute("aria-label");
  }
  // The book's title and chapter list sit in a landmark, and the references are list items
  // (docutils marks them doc-biblioentry, a deprecated role no list may hold).
  const sidebar = document.getElementById("pst-primary-sidebar");
  if (sidebar) {
    sidebar.setAttribute("role", "complementary");
    sidebar.setAttribute("aria-label", "Book navigation");
  }
  for (const entry of document.querySelectorAll('.citation-list > [role="doc-biblioentry"]')) {
    entry.setAttribute("role", "listitem");
  }
  // A drawer closed with Escape hands the focus back to the button that opened it (it fell
  // to the page's body, and the next Tab started again from the top).
  for (const [dialog, toggle] of [["pst-primary-sidebar-modal", ".primary-toggle"],
                                  ["pst-secondary-sidebar-modal", ".secondary-toggle"]]) {
    const drawer = document.getElementById(dialog);
    const shown = () => [...document.querySelectorAll(toggle)].find((button) => button.offsetParent !== null);
    if (drawer) drawer.addEventListener("close", () => shown()?.focus());
  }
  // A glued number ("4.6e-02", "1,234") never breaks at its minus sign; glued text does.
  for (const value of document.querySelectorAll(".bd-article span.pasted-text")) {
    if (!/\s/.test(value.textContent.trim()) && value.textContent.length <= 24) value.classList.add("glued-number");
  }
  // The colour mode button shows one icon, titled "Light", "Dark" or "System Settings", and was
  // named "Color mode" (WCAG 2.5.3): its name now starts with its tooltip, then says the mode
  // shown and the one a press switches to, and follows the mode as it changes.
  const modeButtons = document.querySelectorAll(".theme-switch-button");
  const nameModeButtons = () => {
    const root = document.documentElement;
    const mode = root.dataset.mode || "auto";
    // the theme's cycle (pydata-sphinx-theme's cycleMode): the system's own mode comes right after auto
    const order = matchMedia("(prefers-color-scheme: dark)").matches ? ["auto", "light", "dark"] : ["auto", "dark", "light"];
    const next = order[(order.indexOf(mode) + 1) % order.length];
    for (const button of modeButtons) {
      const title = (m) => {  // the icon's title: an <i title>, or Font Awesome's <svg><title> once it replaced it
        const icon = button.querySelector(`.theme-switch[data-mode="${m}"]`);
        return (icon && (icon.getAttribute("title") || icon.querySelector("title")?.textContent)) ||
               {light: "Light", dark: "Dark", auto: "System Settings"}[m];
      };
      const now = mode === "auto" ? ` (now ${root.dataset.theme || "light"})` : "";
      button.setAttribute("aria-label", `Color mode: ${title(mode)}${now}; switch to ${title(next)}`);
    }
  };
  if (modeButtons.length) {
    nameModeButtons();
    new MutationObserver(nameModeButtons).observe(document.documentElement, {attributes: true, attributeFilter: ["data-mode", "data-theme"]});
  }
  // Formulas are out of the tab order (_config.yml: MathJax's inTabOrder; a keyboard tabbed
  // through some 300 of them), except those wider than their box on this screen: a keyboard
  // scrolls those (biofair.css), so they take the focus. Checked again whenever the article
  // changes size (a turned phone, a resized window, a solution opened).
  const reachable = new Set();  // the formulas made focusable here (MathJax's menu may add all)
  const reachScrollingFormulas = () => {
    for (const formula of document.querySelectorAll(".bd-article mjx-container")) {
      // any overflow, as the browser and axe-core count it (one formula's box rounds 137.5 px
      // of math to 137 and scrolls by 1 px)
      const scrolls = formula.scrollWidth > formula.clientWidth;
      if (scrolls && !formula.hasAttribute("tabindex")) {
        formula.tabIndex = 0;
        reachable.add(formula);
      } else if (!scrolls && reachable.has(formula)) {
        formula.removeAttribute("tabindex");
        reachable.delete(formula);
      }
    }
  };
  const typeset = window.MathJax?.startup?.promise;
  if (typeset) {
    typeset.then(() => document.fonts.ready).then(() => {
      reachScrollingFormulas();
      layTables();
      const article = document.querySelector(".bd-article");
      let pending = false;
      if (article) new ResizeObserver(() => {
        if (!pending) requestAnimationFrame(() => { pending = false; reachScrollingFormulas(); });
        pending = true;
      }).observe(article);
    });
  }
});
