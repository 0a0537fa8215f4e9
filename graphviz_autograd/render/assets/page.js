// The stepper of a recording's page: snapshots and the steps of each backward, one frame at a
// time. Each frame redraws the snapshot's SVG (made in Python on the fixed layout); a step frame
// then restyles, by class, the boxes that backward has run and the buffers it has freed so far.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("gva-data").textContent);
  const picture = document.getElementById("picture");
  const caption = document.getElementById("caption");
  const count = document.getElementById("frame-count");
  const notes = document.getElementById("notes");
  const diagnosis = document.getElementById("diagnosis");
  const timeline = document.getElementById("timeline");
  const stepsBar = document.getElementById("steps");
  const playButton = document.getElementById("play");
  const frames = [];
  // one frame per node a backward ran, and one more for the node where it failed
  function stepCount(b) {
    const back = data.backwards[b];
    return back.steps.length + (back.failed_at ? 1 : 0);
  }
  data.snapshots.forEach(function (snap, i) {
    frames.push({ snap: i, backward: null, step: null });
    const b = snap.steps_of;
    if (b !== null && data.backwards[b]) {
      for (let k = 0; k < stepCount(b); k++) frames.push({ snap: i, backward: b, step: k });
    }
  });
  let current = 0;
  let timer = null;

  function box(id) {
    return picture.querySelector('g.box[data-id="' + CSS.escape(id) + '"]');
  }
  function restyle(id, style, status) {
    const g = box(id);
    if (!g) return;
    g.classList.remove(g.dataset.style);
    g.classList.add(style);
    g.dataset.style = style;
    if (status) {
      const texts = g.querySelectorAll("text");
      if (texts.length) texts[texts.length - 1].textContent = status;
    }
  }
  function applyStep(b, k) {
    const back = data.backwards[b];
    const failed = k === back.steps.length;
    for (let j = 0; j <= Math.min(k, back.steps.length - 1); j++) {
      const s = back.steps[j];
      if ((j < k || failed) && !s.name.endsWith("AccumulateGrad")) restyle(s.node, "done");
      s.released.forEach(function (name) {
        restyle(s.node + "-" + name, "freed", "freed by backward #" + back.number);
      });
    }
    if (failed) restyle(back.failed_at, "failed", "✗ backward #" + back.number + " failed here");
    else restyle(back.steps[k].node, "running");
  }
  function stepText(b, k) {
    const back = data.backwards[b];
    if (k === back.steps.length) {
      return "backward #" + back.number + ": fails at " + back.failed_name +
        " (its saved tensors are gone)";
    }
    const s = back.steps[k];
    return "backward #" + back.number + ": step " + (k + 1) + " of " + stepCount(b) +
      ", running " + s.name + (s.grad_shape ? " (gradient " + s.grad_shape + ")" : "") +
      (s.released.length ? ", frees " + s.released.join(", ") : "");
  }
  function buttonsFor(container, items, onClick) {
    container.textContent = "";
    items.forEach(function (item) {
      const el = document.createElement("button");
      el.type = "button";
      el.textContent = item.text;
      el.title = item.title || item.text;
      if (item.cls) el.className = item.cls;
      el.dataset.frame = String(item.frame);
      el.addEventListener("click", function () { stop(); onClick(item.frame); });
      container.appendChild(el);
    });
  }
  function show(i) {
    current = Math.max(0, Math.min(frames.length - 1, i));
    const f = frames[current];
    const snap = data.snapshots[f.snap];
    picture.innerHTML = snap.svg;
    let text = snap.title;
    if (f.step !== null) {
      applyStep(f.backward, f.step);
      text = stepText(f.backward, f.step);
    }
    caption.textContent = text;
    count.textContent = "frame " + (current + 1) + " of " + frames.length;
    notes.textContent = snap.notes.join("\n");
    diagnosis.textContent = snap.diagnosis;
    picture.dataset.frame = String(current);
    picture.dataset.snapshot = String(snap.index);
    picture.dataset.step = f.step === null ? "" : String(f.step);
    timeline.querySelectorAll("button").forEach(function (el) {
      el.setAttribute("aria-current", String(frames[Number(el.dataset.frame)].snap === f.snap));
    });
    const stepItems = [];
    if (snap.steps_of !== null || f.step !== null) {
      const b = f.step !== null ? f.backward : snap.steps_of;
      const first = frames.findIndex(function (g) { return g.backward === b && g.step === 0; });
      if (first >= 0) {
        const back = data.backwards[b];
        for (let k = 0; k < stepCount(b); k++) {
          const failed = k === back.steps.length;
          stepItems.push({ text: failed ? "✗" : String(k + 1), frame: first + k,
                           title: failed ? "fails at " + back.failed_name
                                         : "step " + (k + 1) + ": " + back.steps[k].name,
                           cls: failed ? "failed" : "" });
        }
      }
    }
    buttonsFor(stepsBar, stepItems, show);
    stepsBar.querySelectorAll("button").forEach(function (el) {
      el.setAttribute("aria-current", String(Number(el.dataset.frame) === current));
    });
    document.getElementById("prev").disabled = current === 0;
    document.getElementById("next").disabled = current === frames.length - 1;
  }
  function stop() {
    if (timer !== null) { clearInterval(timer); timer = null; }
    playButton.textContent = "▶ Play";
    playButton.setAttribute("aria-pressed", "false");
  }
  function play() {
    if (timer !== null) { stop(); return; }
    if (current === frames.length - 1) show(0);
    playButton.textContent = "⏸ Pause";
    playButton.setAttribute("aria-pressed", "true");
    timer = setInterval(function () {
      if (current >= frames.length - 1) { stop(); return; }
      show(current + 1);
    }, data.interval_ms);
  }
  const snapItems = [];
  frames.forEach(function (f, i) {
    if (f.step !== null) return;
    const s = data.snapshots[f.snap];
    snapItems.push({ text: "#" + s.index + " " + s.label, frame: i,
                     cls: s.kind === "backward_failed" ? "failed" : "" });
  });
  buttonsFor(timeline, snapItems, show);
  document.getElementById("prev").addEventListener("click", function () { stop(); show(current - 1); });
  document.getElementById("next").addEventListener("click", function () { stop(); show(current + 1); });
  playButton.addEventListener("click", play);
  document.getElementById("show-saved").addEventListener("change", function (e) {
    picture.classList.toggle("hide-saved", !e.target.checked);
  });
  document.getElementById("show-ghosts").addEventListener("change", function (e) {
    picture.classList.toggle("hide-ghosts", !e.target.checked);
  });
  document.getElementById("fit").addEventListener("change", function (e) {
    picture.classList.toggle("fit", e.target.checked);
  });
  document.addEventListener("keydown", function (e) {
    if (e.target instanceof HTMLInputElement) return;
    if (e.key === "ArrowRight") { stop(); show(current + 1); }
    else if (e.key === "ArrowLeft") { stop(); show(current - 1); }
    else if (e.key === "Home") { stop(); show(0); }
    else if (e.key === "End") { stop(); show(frames.length - 1); }
    else if (e.key === " ") { play(); }
    else return;
    e.preventDefault();
  });
  show(0);
})();
