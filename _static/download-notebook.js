// The page's download menu links the chapter's notebook (_sources/chapters/<name>.ipynb).
// Mark it as a download, so the browser saves <name>.ipynb instead of showing its JSON.
document.addEventListener("DOMContentLoaded", () => {
  for (const a of document.querySelectorAll("a.btn-download-source-button")) {
    const name = a.getAttribute("href").split("/").pop();
    a.setAttribute("download", name);
    a.removeAttribute("target");
  }
});
