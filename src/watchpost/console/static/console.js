// Watchpost console: enhancements only. Every page works without this file.
"use strict";

// A form with data-confirm asks first (the server asks again when JavaScript is off).
document.addEventListener("submit", (event) => {
  const form = event.target;
  const submitter = event.submitter;
  const message = (submitter && submitter.dataset.confirm) || form.dataset.confirm;
  if (message && !window.confirm(message)) {
    event.preventDefault();
  }
});

// "Select all" checkboxes select the rows of their table.
document.addEventListener("change", (event) => {
  const box = event.target;
  if (box.matches && box.matches("input[data-select-all]")) {
    const table = box.closest("form") || document;
    for (const row of table.querySelectorAll("input[name='item']")) {
      row.checked = box.checked;
    }
  }
});

// Copy buttons copy the text of the element they name.
document.addEventListener("click", (event) => {
  const button = event.target.closest && event.target.closest("button[data-copy]");
  if (!button) return;
  const source = document.getElementById(button.dataset.copy);
  if (source && navigator.clipboard) {
    navigator.clipboard.writeText(source.textContent.trim()).then(() => {
      button.textContent = "Copied";
    });
  }
});

// Live pages: the server tells (server-sent events) when the team's state changed; the
// page's main content is then fetched again and swapped in place.
(() => {
  const main = document.querySelector("main[data-live]");
  if (!main || !window.EventSource) return;
  let refreshing = false;
  const refresh = async () => {
    if (refreshing) return;
    refreshing = true;
    try {
      const answer = await fetch(window.location.href, { headers: { "Accept": "text/html" } });
      if (answer.ok && !answer.redirected) {
        const page = new DOMParser().parseFromString(await answer.text(), "text/html");
        const fresh = page.querySelector("main");
        const focused = document.activeElement && document.activeElement.id;
        const typing = document.activeElement && document.activeElement.matches("input, select, textarea");
        if (fresh && !typing) {
          main.innerHTML = fresh.innerHTML;
          if (focused) {
            const again = document.getElementById(focused);
            if (again) again.focus();
          }
        }
      }
    } finally {
      refreshing = false;
    }
  };
  const source = new EventSource(main.dataset.live);
  source.addEventListener("change", refresh);
})();

// Forms to create and edit (editing.py): a chooser (monitor type, target kind) reloads the
// form for the choice as soon as it changes; without JavaScript its button does the same.
document.addEventListener("change", (event) => {
  const select = event.target;
  const form = select.closest && select.closest("form[data-autosubmit]");
  if (form && select.matches("select")) form.submit();
});

// ---- Team pages (/team, /team/tokens): a form whose confirmation the browser asked for
// says so (confirm=yes), so the server does not ask a second time.
document.addEventListener("submit", (event) => {
  if (event.defaultPrevented) return;
  const field = event.target.querySelector("input[data-set-when-confirmed]");
  if (field) field.value = "yes";
});

// ---- Detail pages and bulk actions (details.py, bulk.py) ----
// A confirmed data-confirm button posts confirm=yes: the server then does not ask again.
document.addEventListener("submit", (event) => {
  if (event.defaultPrevented) return;
  const form = event.target;
  const submitter = event.submitter;
  const asked = (submitter && submitter.dataset.confirm) || form.dataset.confirm;
  if (!asked || form.querySelector("input[name='confirm']")) return;
  const confirmed = document.createElement("input");
  confirmed.type = "hidden";
  confirmed.name = "confirm";
  confirmed.value = "yes";
  form.appendChild(confirmed);
});

// Status pages (console/status_pages_layout.py): drag a resource to another place, in its
// section or another one. The drop posts the same move the Move up / Move down buttons
// post (section_id and position instead of a direction), then the page is read again.
(() => {
  const lists = document.querySelectorAll("ol[data-sortable]");
  if (!lists.length) return;
  document.body.classList.add("sp-js");
  const csrf = document.querySelector("input[name='csrf']");
  let dragged = null;
  for (const list of lists) {
    for (const item of list.querySelectorAll("li[data-resource-id]")) {
      item.draggable = true;
      item.addEventListener("dragstart", (event) => {
        dragged = item;
        item.classList.add("sp-dragging");
        event.dataTransfer.effectAllowed = "move";
        event.dataTransfer.setData("text/plain", item.dataset.resourceId);
      });
      item.addEventListener("dragend", () => {
        item.classList.remove("sp-dragging");
        for (const over of document.querySelectorAll(".sp-over")) over.classList.remove("sp-over");
      });
    }
    list.addEventListener("dragover", (event) => {
      if (!dragged) return;
      event.preventDefault();
      const target = event.target.closest("li[data-resource-id]");
      for (const over of document.querySelectorAll(".sp-over")) over.classList.remove("sp-over");
      if (target && target !== dragged) target.classList.add("sp-over");
    });
    list.addEventListener("drop", (event) => {
      if (!dragged) return;
      event.preventDefault();
      const items = [...list.querySelectorAll("li[data-resource-id]")].filter((li) => li !== dragged);
      const target = event.target.closest("li[data-resource-id]");
      let position = target ? items.indexOf(target) : items.length;
      if (position < 0) position = items.length;
      const body = new URLSearchParams({
        csrf: csrf ? csrf.value : "",
        section_id: list.dataset.sectionId,
        position: String(position),
      });
      const url = list.dataset.sortable + dragged.dataset.resourceId + "/move";
      dragged = null;
      fetch(url, {
        method: "POST",
        body,
        credentials: "same-origin",
        headers: { "X-Requested-With": "fetch" },
      }).then((answer) => {
        if (answer.ok) {
          window.location.reload();
        } else {
          answer.text().then((text) => window.alert(text || "The move was refused."));
        }
      });
    });
  }
})();

// ---- Logs: the live tail (/logs/tail, console/logs.py) ----
// Lines arrive as server-sent events (the server sends at most so many a second and says how
// many it skipped); the page keeps the last data-keep lines. Pause stops adding lines (they
// are counted) until Resume.
(() => {
  const box = document.querySelector("[data-tail]");
  if (!box || !window.EventSource) return;
  const list = box.querySelector("[data-tail-lines]");
  const toggle = box.querySelector("[data-tail-toggle]");
  const state = box.querySelector("[data-tail-state]");
  const skippedLine = box.querySelector("[data-tail-skipped]");
  const keep = parseInt(box.dataset.keep, 10) || 500;
  let paused = false;
  let held = 0;
  let skipped = 0;
  const say = () => {
    const parts = [];
    if (skipped) parts.push("Skipped " + skipped + " lines (too many a second to show)");
    if (held) parts.push(held + " lines arrived while paused (not shown)");
    skippedLine.textContent = parts.join(". ");
  };
  toggle.hidden = false;
  state.textContent = "Connecting…";
  toggle.addEventListener("click", () => {
    paused = !paused;
    toggle.textContent = paused ? "Resume" : "Pause";
    toggle.setAttribute("aria-pressed", paused ? "true" : "false");
    state.textContent = paused ? "Paused" : "Live";
  });
  const source = new EventSource(box.dataset.tail);
  source.addEventListener("open", () => { if (!paused) state.textContent = "Live"; });
  source.addEventListener("error", () => { state.textContent = "Reconnecting…"; });
  source.addEventListener("skipped", (event) => {
    skipped = parseInt(event.data, 10) || skipped;
    say();
  });
  source.addEventListener("log", (event) => {
    if (paused) { held += 1; say(); return; }
    let data;
    try { data = JSON.parse(event.data); } catch (e) { return; }
    const item = document.createElement("li");
    const time = document.createElement("time");
    time.textContent = data.dt;
    const line = document.createElement("span");
    line.className = "log-message";
    line.textContent = " " + data.line;
    item.append(time, line);
    list.append(item);
    while (list.children.length > keep) list.firstElementChild.remove();
    const nearBottom = window.innerHeight + window.scrollY >= document.body.scrollHeight - 80;
    if (nearBottom) item.scrollIntoView({ block: "end" });
  });
})();
