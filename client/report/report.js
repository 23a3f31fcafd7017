/* report.js — the page of mcalltree's -f html (and `mcalltree diff -f html`).
 * It reads the JSON blob in #mct-data, written by client/fmt_html.c:
 *   {"kind":"run","runs":[{"pid":N|null,"summary":SUMMARY}],"facts":{"hello":..,
 *    "request":..,"plan":..,"end":..,"gates":[{"gate":..,"passed":BOOL,"failures":[..],
 *    "pid":N (the wrap form)}],"merged":[FILE..] (mcalltree merge)},
 *    "intervals":N,"from_calls":BOOL,"warmup_calls":N,
 *    "tool":..,"host":..,"written":..}
 *   {"kind":"diff","diff":DIFF,"base":SUMMARY,"new":SUMMARY,"tool":..,"host":..,"written":..}
 * (SUMMARY: README "The summary object"; DIFF: what `mcalltree diff -f json`
 * prints), flattens the tree into one array of nodes and draws it: an
 * icicle (one absolutely placed div per node at least MIN_PX wide, built in
 * one pass), a table of the expanded rows only, a node's figures, and the
 * slowest calls as timelines. window.mctReport exposes what the tests
 * check (render time, the nodes drawn). */
"use strict";

(function () {
    const ROW_PX = 18;
    const MIN_PX = 1;           /* narrower nodes, and their children, are not drawn */
    const CHANGE_PCT = 10;      /* diff: grown or shrunk past this change of the statistic */
    const JDK_CLASS = /^(java|javax|jdk|sun|com\.sun)\./;
    const STAT_KEY = { p50: "p50_ns", p90: "p90_ns", p99: "p99_ns" };

    const data = JSON.parse(document.getElementById("mct-data").textContent);
    const isDiff = data.kind === "diff";
    const $ = (id) => document.getElementById(id);

    /* ---- text ---------------------------------------------------------------------- */

    function el(tag, attrs, text) {
        const e = document.createElement(tag);
        for (const k in attrs || {}) {
            e.setAttribute(k, attrs[k]);
        }
        if (text !== undefined) {
            e.textContent = text;
        }
        return e;
    }

    function dur(ns) {
        if (ns === null || ns === undefined || Number.isNaN(ns)) {
            return "-";
        }
        if (ns < 1e3) {
            return ns.toFixed(0) + " ns";
        }
        if (ns < 1e6) {
            return (ns / 1e3).toPrecision(3) + " µs";
        }
        if (ns < 1e9) {
            return (ns / 1e6).toPrecision(3) + " ms";
        }
        return (ns / 1e9).toPrecision(3) + " s";
    }

    function bytes(n) {
        if (n === null || n === undefined || Number.isNaN(n)) {
            return "-";
        }
        const units = ["B", "KiB", "MiB", "GiB", "TiB"];
        let u = 0;
        while (n >= 1024 && u < units.length - 1) {
            n /= 1024;
            u++;
        }
        return (u === 0 ? n.toFixed(0) : n.toPrecision(3)) + " " + units[u];
    }

    function num(n, digits) {
        if (n === null || n === undefined || Number.isNaN(n)) {
            return "-";
        }
        if (Number.isInteger(n)) {
            return String(n);
        }
        return Math.abs(n) < 1 ? String(Number(n.toPrecision(digits || 3))) : n.toFixed(digits === undefined ? 2 : digits);
    }

    function pct(p) {
        return p === null || p === undefined || !Number.isFinite(p) ? "-" : (p > 0 ? "+" : "") + p.toFixed(1) + "%";
    }

    /* Java's parameter list of a descriptor: "(I[Ljava/lang/String;)V" -> "(int, String[])". */
    function params(desc) {
        const prim = { B: "byte", C: "char", D: "double", F: "float", I: "int", J: "long", S: "short", Z: "boolean" };
        const out = [];
        let i = 1;
        while (i < desc.length && desc[i] !== ")") {
            let dims = 0;
            while (desc[i] === "[") {
                dims++;
                i++;
            }
            let t;
            if (desc[i] === "L") {
                const end = desc.indexOf(";", i);
                if (end < 0) {
                    return desc;
                }
                t = desc.slice(i + 1, end).split("/").pop();
                i = end + 1;
            } else {
                t = prim[desc[i]] || desc[i];
                i++;
            }
            out.push(t + "[]".repeat(dims));
        }
        return "(" + out.join(", ") + ")";
    }

    /* ---- the model: one flat array of nodes -------------------------------------- */

    /* A regex of the request, as Java wrote it, for a whole class name; null
     * when JavaScript reads it otherwise. */
    function classRegex(src) {
        try {
            return src ? new RegExp("^(?:" + src + ")$") : null;
        } catch (e) {
            return null;
        }
    }

    const facts = data.facts || {};
    const request = facts.request || {};
    const regex = classRegex(request.regex);

    let nodes = [];             /* {id, parent, depth, kids, cls, method, desc, n, b, status, ...} */
    let top = null;             /* the node drawn first: the root, or every root under one */
    let summary = null;         /* run: the summary shown; diff: the new one */

    function roots(s) {
        if (!s) {
            return [];
        }
        const r = s.root ? [s.root] : [];
        return r.concat(s.more_roots || []);
    }

    function addNode(parent, cls, method, desc) {
        const node = { id: nodes.length, parent: parent, depth: parent ? parent.depth + 1 : 0, kids: [],
            cls: cls, method: method, desc: desc, n: null, b: null, status: "same", boundary: false };
        node.name = cls + "." + method;
        node.lname = node.name.toLowerCase();
        if (parent) {
            parent.kids.push(node);
            node.boundary = JDK_CLASS.test(cls) || (regex !== null && !regex.test(cls));
        }
        nodes.push(node);
        return node;
    }

    /* Several roots (the entry method's overloads) go under one node of their own. */
    function topOf(count) {
        if (count < 2) {
            return null;
        }
        const t = addNode(null, "(entry)", "all overloads", "");
        t.virtual = true;
        return t;
    }

    function buildRun(s) {
        nodes = [];
        summary = s;
        const list = roots(s);
        top = topOf(list.length);
        const walk = (sn, parent) => {
            const node = addNode(parent, sn.class, sn.method, sn.desc);
            node.n = sn;
            for (const k of sn.children || []) {
                walk(k, node);
            }
            return node;
        };
        for (const r of list) {
            const node = walk(r, top);
            if (!top) {
                top = node;
            }
        }
    }

    function sameNames(a, cls, method, desc) {
        return a.class === cls && a.method === method && a.desc === desc;
    }

    /* The first node of list not taken yet with the names; marks it taken. */
    function take(list, used, cls, method, desc) {
        for (let i = 0; i < list.length; i++) {
            if (!used.has(list[i]) && sameNames(list[i], cls, method, desc)) {
                used.add(list[i]);
                return list[i];
            }
        }
        return null;
    }

    /* The diff's rows come depth first with their depth: the merged tree. */
    function buildDiff() {
        nodes = [];
        summary = data.new;
        const broots = roots(data.base);
        const nroots = roots(data.new);
        const depth0 = data.diff.nodes.filter((r) => r.depth === 0).length;
        top = topOf(depth0);
        const stack = [];
        const used = new Set();
        for (const row of data.diff.nodes) {
            const parent = row.depth === 0 ? top : stack[row.depth - 1];
            const node = addNode(parent, row.class, row.method, row.desc);
            node.row = row;
            const bk = row.depth === 0 ? broots : (parent.b && parent.b.children) || [];
            const nk = row.depth === 0 ? nroots : (parent.n && parent.n.children) || [];
            if (row.status !== "added") {
                node.b = take(bk, used, row.class, row.method, row.desc);
            }
            if (row.status !== "removed") {
                node.n = take(nk, used, row.class, row.method, row.desc);
            }
            node.status = row.status;
            stack[row.depth] = node;
            stack.length = row.depth + 1;
            if (!top) {
                top = node;
            }
        }
    }

    /* Whether node is a task handed off to another thread: its summary node
     * (either side of a diff) is async. */
    function isAsync(node) {
        return Boolean((node.n && node.n.async) || (node.b && node.b.async));
    }

    /* ---- the statistic --------------------------------------------------------------- */

    let stat = "p50";

    /* A summary node's time per entry call at the statistic; calls: its summary's. */
    function statOf(sn, calls) {
        if (!sn) {
            return null;
        }
        if (stat === "mean") {
            return calls > 0 ? sn.total_ns / calls : 0;
        }
        return sn[STAT_KEY[stat]];
    }

    function baseCalls() {
        return isDiff ? data.base.calls : 0;
    }

    function valueOf(node) {
        if (node.virtual) {
            return node.kids.reduce((s, k) => s + valueOf(k), 0);
        }
        const v = node.n ? statOf(node.n, summary.calls) : statOf(node.b, baseCalls());
        return v || 0;
    }

    /* diff: the change of the statistic in %, null for a node on one side only. */
    function changeOf(node) {
        if (!node.n || !node.b) {
            return null;
        }
        const b = statOf(node.b, baseCalls());
        const n = statOf(node.n, summary.calls);
        return b > 0 ? (n - b) * 100 / b : (n > 0 ? Infinity : 0);
    }

    function diffClass(node) {
        if (node.status === "added" || node.status === "removed") {
            return node.status;
        }
        const c = changeOf(node);
        return c === null ? "same" : c >= CHANGE_PCT ? "grown" : c <= -CHANGE_PCT ? "shrunk" : "same";
    }

    function colorOf(node) {
        if (node.virtual) {
            return "#ddd";
        }
        if (isDiff) {
            const kind = diffClass(node);
            const c = Math.min(Math.abs(changeOf(node) || 0), 200) / 200;
            switch (kind) {
            case "added": return "hsl(212, 70%, 62%)";
            case "removed": return "hsl(0, 0%, 78%)";
            case "grown": return "hsl(4, " + (55 + 35 * c) + "%, " + (68 - 18 * c) + "%)";
            case "shrunk": return "hsl(135, " + (45 + 35 * c) + "%, " + (66 - 16 * c) + "%)";
            default: return "hsl(48, 30%, 86%)";
            }
        }
        const sn = node.n;
        const self = sn.total_ns > 0 ? sn.self_ns / sn.total_ns : 0;
        if (node.boundary) {
            return "hsl(205, " + (25 + 40 * self) + "%, " + (78 - 18 * self) + "%)";
        }
        return "hsl(" + (50 - 50 * self) + ", 90%, " + (70 - 12 * self) + "%)";
    }

    /* ---- the icicle ------------------------------------------------------------------- */

    let zoom = null;            /* the node drawn full width */
    let selected = null;
    let drawn = [];             /* the nodes with a cell now, by cell order */
    const icicle = $("icicle");
    const tip = $("tip");

    /* x and w (px) of node's subtree below zoom: children share their
     * parent's width by value; percentiles do not add up, so children
     * whose values sum past their parent's are scaled to fit. */
    function layout(node, x, w, out) {
        if (w < MIN_PX) {
            return;
        }
        out.push([node, x, w]);
        const pv = valueOf(node);
        let sum = 0;
        for (const k of node.kids) {
            sum += valueOf(k);
        }
        const scale = sum > pv ? sum : pv;
        if (scale <= 0) {
            return;
        }
        let cx = x;
        for (const k of node.kids) {
            const kw = w * valueOf(k) / scale;
            layout(k, cx, kw, out);
            cx += kw;
        }
    }

    function drawIcicle() {
        const t0 = performance.now();
        const width = icicle.clientWidth - 2;
        const cells = [];
        const above = [];
        for (let a = zoom.parent; a; a = a.parent) {
            above.unshift(a);
        }
        const placed = above.map((a) => [a, 0, width]);
        layout(zoom, 0, width, placed);
        let maxDepth = 0;
        const frag = document.createDocumentFragment();
        drawn = [];
        for (const [node, x, w] of placed) {
            const c = document.createElement("div");
            c.className = "cell" + (node.boundary ? " jdk" : "") + (isAsync(node) ? " async" : "") +
                (node.depth < zoom.depth ? " above" : "") +
                (isDiff ? " d-" + diffClass(node) : "") + (node === selected ? " selected" : "") +
                (searchTerm && node.lname.includes(searchTerm) ? " match" : "");
            c.style.left = x.toFixed(1) + "px";
            c.style.width = w.toFixed(1) + "px";
            c.style.top = (node.depth * ROW_PX) + "px";
            c.style.backgroundColor = colorOf(node);
            c.dataset.id = node.id;
            if (w > 30) {
                c.textContent = node.name;
            }
            frag.appendChild(c);
            cells.push(c);
            drawn.push(node);
            if (node.depth > maxDepth) {
                maxDepth = node.depth;
            }
        }
        icicle.textContent = "";
        icicle.style.height = ((maxDepth + 1) * ROW_PX + 2) + "px";
        icicle.appendChild(frag);
        icicle.classList.toggle("searching", searchTerm !== "");
        drawCrumbs();
        window.mctReport.cells = cells.length;
        return performance.now() - t0;
    }

    function drawCrumbs() {
        const crumbs = $("crumbs");
        crumbs.textContent = "";
        const path = [];
        for (let a = zoom; a; a = a.parent) {
            path.unshift(a);
        }
        path.forEach((a, i) => {
            if (i > 0) {
                crumbs.appendChild(document.createTextNode(" > "));
            }
            const link = el("a", {}, a.name);
            link.addEventListener("click", () => zoomTo(a));
            crumbs.appendChild(link);
        });
    }

    function zoomTo(node) {
        zoom = node;
        $("zoom-out").disabled = zoom === top;
        drawIcicle();
    }

    function nodeAt(target) {
        const id = target && target.dataset ? target.dataset.id : undefined;
        return id === undefined ? null : nodes[Number(id)];
    }

    function tipText(node) {
        const lines = [node.name + params(node.desc)];
        if (isAsync(node)) {
            lines.push("a task handed off to another thread: its time is not its parent's");
        }
        const fig = (label, sn, calls) => {
            if (!sn) {
                return;
            }
            lines.push(label + "calls/entry " + num(sn.calls / calls) + "  p50 " + dur(sn.p50_ns) + "  p90 " +
                dur(sn.p90_ns) + "  p99 " + dur(sn.p99_ns) + "  self/entry " + dur(sn.self_ns / calls));
        };
        if (isDiff) {
            fig("base: ", node.b, baseCalls());
            fig("new:  ", node.n, summary.calls);
            lines.push(diffClass(node) + (node.status === "calls" ? ", calls per entry call changed" : "") +
                "  " + stat + " " + pct(changeOf(node)));
        } else if (!node.virtual) {
            fig("", node.n, summary.calls);
            if (node.boundary) {
                lines.push(JDK_CLASS.test(node.cls) ? "JDK class" : "outside the regex");
            }
        }
        return lines.join("\n");
    }

    icicle.addEventListener("mousemove", (ev) => {
        const node = nodeAt(ev.target);
        if (!node) {
            tip.hidden = true;
            return;
        }
        tip.textContent = tipText(node);
        tip.hidden = false;
        tip.style.left = Math.min(ev.clientX + 12, window.innerWidth - tip.offsetWidth - 8) + "px";
        tip.style.top = (ev.clientY + 16) + "px";
    });
    icicle.addEventListener("mouseleave", () => {
        tip.hidden = true;
    });
    icicle.addEventListener("click", (ev) => {
        const node = nodeAt(ev.target);
        if (node) {
            select(node);
            zoomTo(node);
        }
    });
    $("zoom-out").addEventListener("click", () => zoomTo(top));

    /* ---- search ----------------------------------------------------------------------- */

    let searchTerm = "";

    $("search").addEventListener("input", (ev) => {
        searchTerm = ev.target.value.trim().toLowerCase();
        let count = 0;
        if (searchTerm) {
            for (const node of nodes) {
                if (node.lname.includes(searchTerm)) {
                    count++;
                }
            }
        }
        $("search-count").textContent = searchTerm ? count + " of " + nodes.length + " nodes match" : "";
        const cells = icicle.children;
        for (let i = 0; i < cells.length; i++) {
            cells[i].classList.toggle("match", searchTerm !== "" && drawn[i].lname.includes(searchTerm));
        }
        icicle.classList.toggle("searching", searchTerm !== "");
    });

    /* ---- a node's figures -------------------------------------------------------------- */

    /* The node's time per entry call at p50, p90, p99 and its maximum, as
     * bars: the points of its histogram that the summary keeps. */
    function quantilePlot(sn) {
        const ns = "http://www.w3.org/2000/svg";
        const W = 300, H = 100, B = 16, BAR = 60;
        const svg = document.createElementNS(ns, "svg");
        svg.setAttribute("width", W);
        svg.setAttribute("height", H);
        svg.setAttribute("aria-label", "time per entry call: p50, p90, p99, max");
        const max = Math.max(1, sn.entry_max_ns);
        const add = (tag, attrs, text) => {
            const e = document.createElementNS(ns, tag);
            for (const k in attrs) {
                e.setAttribute(k, attrs[k]);
            }
            if (text !== undefined) {
                e.textContent = text;
            }
            svg.appendChild(e);
        };
        [["p50", sn.p50_ns], ["p90", sn.p90_ns], ["p99", sn.p99_ns], ["max", sn.entry_max_ns]].forEach(([k, v], i) => {
            const h = Math.max(1, v / max * (H - B - 14));
            const x = 10 + i * (BAR + 12);
            add("rect", { x: x, y: H - B - h, width: BAR, height: h, fill: i === 3 ? "#c0271d" : "#e8883a" });
            add("text", { x: x + BAR / 2, y: H - B - h - 3, "font-size": 10, "text-anchor": "middle" }, dur(v));
            add("text", { x: x + BAR / 2, y: H - 4, "font-size": 10, "text-anchor": "middle" }, k);
        });
        return svg;
    }

    /* The node on the same path in a call's tree, or null. */
    function inCall(node, call) {
        const path = [];
        for (let a = node; a && !a.virtual; a = a.parent) {
            path.unshift(a);
        }
        let cur = call.root;
        if (!cur || !sameNames(cur, path[0].cls, path[0].method, path[0].desc)) {
            return null;
        }
        for (const a of path.slice(1)) {
            cur = (cur.children || []).find((k) => sameNames(k, a.cls, a.method, a.desc));
            if (!cur) {
                return null;
            }
        }
        return cur;
    }

    function figures(dl, sn, calls, label) {
        const row = (k, v) => {
            dl.appendChild(el("dt", {}, label + k));
            dl.appendChild(el("dd", {}, v));
        };
        row("calls", num(sn.calls) + " (" + num(sn.calls / calls) + " per entry call, in " + num(sn.entries) +
            " of " + num(calls) + " entry calls)");
        row("calls per entry call", "min " + num(sn.calls_min) + ", max " + num(sn.calls_max));
        row("time per entry call", "p50 " + dur(sn.p50_ns) + ", p90 " + dur(sn.p90_ns) + ", p99 " + dur(sn.p99_ns) +
            ", max " + dur(sn.entry_max_ns) + ", mean " + dur(sn.total_ns / calls));
        if (sn.cpu_ns !== undefined) {
            row("CPU time per entry call", "p50 " + dur(sn.cpu_p50_ns) + ", p90 " + dur(sn.cpu_p90_ns) + ", p99 " +
                dur(sn.cpu_p99_ns) + ", max " + dur(sn.cpu_entry_max_ns) + ", mean " + dur(sn.cpu_ns / calls) +
                " (waiting: mean " + dur(sn.wait_ns / calls) + ")");
        }
        if (sn.alloc_bytes !== undefined) {
            row("bytes allocated per entry call", "p50 " + bytes(sn.alloc_p50_bytes) + ", p90 " +
                bytes(sn.alloc_p90_bytes) + ", p99 " + bytes(sn.alloc_p99_bytes) + ", max " +
                bytes(sn.alloc_entry_max_bytes) + ", mean " + bytes(sn.alloc_bytes / calls));
        }
        row("one invocation", "min " + dur(sn.min_ns) + ", max " + dur(sn.max_ns));
        row("self per entry call", dur(sn.self_ns / calls) + " (" + num(sn.total_ns > 0 ? 100 * sn.self_ns / sn.total_ns : 0, 1) + "% of its time)");
        row("throws", num(sn.throws) + (sn.truncated ? " (truncated nodes)" : ""));
    }

    function select(node) {
        selected = node;
        const box = $("details");
        box.textContent = "";
        box.appendChild(el("h2", {}, "Node"));
        box.appendChild(el("p", { "class": "mono" }, node.name + params(node.desc) + "  " + node.desc));
        if (node.virtual) {
            return;
        }
        const dl = el("dl");
        if (node.boundary) {
            dl.appendChild(el("dt", {}, "class"));
            dl.appendChild(el("dd", {}, JDK_CLASS.test(node.cls) ? "a JDK class" : "outside the regex " + request.regex));
        }
        if (isDiff) {
            dl.appendChild(el("dt", {}, "change"));
            dl.appendChild(el("dd", { "class": diffClass(node) }, diffClass(node) + ", " + stat + " " + pct(changeOf(node)) +
                (node.row ? ", calls per entry call " + node.row.calls_per_entry.base + " -> " + node.row.calls_per_entry.new : "")));
            if (node.b) {
                figures(dl, node.b, baseCalls(), "base ");
            }
            if (node.n) {
                figures(dl, node.n, summary.calls, "new ");
            }
        } else {
            figures(dl, node.n, summary.calls, "");
        }
        box.appendChild(dl);
        const sn = node.n || node.b;
        box.appendChild(quantilePlot(sn));
        const through = (summary.slowest || []).map((c, i) => [c, i, inCall(node, c)]).filter((t) => t[2]);
        if (through.length > 0) {
            box.appendChild(el("h3", {}, "Slowest calls through it"));
            const ul = el("ul");
            for (const [c, i, cn] of through) {
                const li = el("li", {}, "#" + c.seq + " " + dur(c.root.total_ns) + ": here " + cn.calls + " calls, " +
                    dur(cn.total_ns) + " (click: timeline)");
                li.style.cursor = "pointer";
                li.addEventListener("click", () => showTimeline(i));
                ul.appendChild(li);
            }
            box.appendChild(ul);
        }
        for (const c of icicle.querySelectorAll(".cell")) {
            c.classList.toggle("selected", c.dataset.id === String(node.id));
        }
    }

    /* ---- the table ------------------------------------------------------------------------ */

    const expanded = new Set();
    let sortKey = isDiff ? "value_n" : "value";
    let sortDir = -1;

    const columns = isDiff ? [
        ["name", "method"], ["status", "change"], ["cpe_b", "calls/entry base"], ["cpe_n", "new"],
        ["value_b", "stat base"], ["value_n", "new"], ["change", "change"], ["p99_b", "p99 base"], ["p99", "p99 new"],
    ] : [
        ["name", "method"], ["cpe", "calls/entry"], ["cmin", "min"], ["cmax", "max"], ["p50", "p50"],
        ["p90", "p90"], ["p99", "p99"], ["mean", "mean"], ["self", "self/entry"], ["throws", "throws"],
    ];

    function cellValue(node, key) {
        const sn = node.n;
        const calls = summary.calls;
        switch (key) {
        case "name": return node.name;
        case "value": return valueOf(node);
        case "status": return diffClass(node) + (node.status === "calls" ? ", calls" : "");
        case "change": return changeOf(node);
        case "cpe": return sn ? sn.calls / calls : null;
        case "cpe_b": return node.b ? node.b.calls / baseCalls() : null;
        case "cpe_n": return sn ? sn.calls / calls : null;
        case "value_b": return node.b ? statOf(node.b, baseCalls()) : null;
        case "value_n": return sn ? statOf(sn, calls) : null;
        case "cmin": return sn ? sn.calls_min : null;
        case "cmax": return sn ? sn.calls_max : null;
        case "p50": return sn ? sn.p50_ns : null;
        case "p90": return sn ? sn.p90_ns : null;
        case "p99": return sn ? sn.p99_ns : null;
        case "p99_b": return node.b ? node.b.p99_ns : null;
        case "mean": return sn ? sn.total_ns / calls : null;
        case "self": return sn ? sn.self_ns / calls : null;
        case "throws": return sn ? sn.throws : null;
        default: return null;
        }
    }

    function cellText(node, key) {
        const v = cellValue(node, key);
        switch (key) {
        case "name": case "status": return String(v);
        case "change": return pct(v);
        case "cpe": case "cpe_b": case "cpe_n": case "cmin": case "cmax": case "throws": return num(v);
        default: return dur(v);
        }
    }

    function drawHead() {
        const tr = el("tr");
        for (const [key, label] of columns) {
            const th = el("th", { "data-key": key }, label + (key === sortKey ? (sortDir < 0 ? " ▾" : " ▴") : ""));
            th.addEventListener("click", () => {
                sortDir = key === sortKey ? -sortDir : (key === "name" ? 1 : -1);
                sortKey = key;
                drawHead();
                drawTable();
            });
            tr.appendChild(th);
        }
        const head = $("tree").tHead;
        head.textContent = "";
        head.appendChild(tr);
    }

    function sorted(kids) {
        const cmp = (a, b) => {
            const x = cellValue(a, sortKey);
            const y = cellValue(b, sortKey);
            if (x === y) {
                return 0;
            }
            if (x === null) {
                return 1;
            }
            if (y === null) {
                return -1;
            }
            return (x < y ? -1 : 1) * sortDir;
        };
        return kids.slice().sort(cmp);
    }

    function drawTable() {
        const body = $("tree").tBodies[0];
        const frag = document.createDocumentFragment();
        const row = (node) => {
            const tr = el("tr", { "data-id": node.id });
            if (node === selected) {
                tr.className = "selected";
            }
            columns.forEach(([key], i) => {
                const td = el("td");
                if (i === 0) {
                    td.style.paddingLeft = (4 + 14 * node.depth) + "px";
                    const t = el("span", { "class": "toggle" }, node.kids.length ? (expanded.has(node) ? "▾" : "▸") : "");
                    td.appendChild(t);
                    td.appendChild(document.createTextNode(node.name + params(node.desc)));
                    if (isAsync(node)) {
                        td.appendChild(el("span", { "class": "async-tag" }, " async"));
                    }
                    if (isDiff) {
                        td.className = diffClass(node);
                    }
                } else {
                    td.textContent = cellText(node, key);
                }
                tr.appendChild(td);
            });
            frag.appendChild(tr);
            if (expanded.has(node)) {
                for (const k of sorted(node.kids)) {
                    row(k);
                }
            }
        };
        row(top);
        body.textContent = "";
        body.appendChild(frag);
    }

    $("tree").tBodies[0].addEventListener("click", (ev) => {
        const tr = ev.target.closest("tr");
        const node = tr ? nodes[Number(tr.dataset.id)] : null;
        if (!node) {
            return;
        }
        if (ev.target.classList.contains("toggle")) {
            if (expanded.has(node)) {
                expanded.delete(node);
            } else {
                expanded.add(node);
            }
        } else {
            select(node);
            zoomTo(node);
        }
        drawTable();
    });

    /* ---- the slowest calls --------------------------------------------------------------- */

    function drawSlowest() {
        const list = summary.slowest || [];
        $("slowest-section").hidden = list.length === 0;
        const head = $("slowest").tHead;
        head.textContent = "";
        const tr = el("tr");
        for (const h of ["#", "thread", "started", "took", "nodes", "ended"]) {
            tr.appendChild(el("th", {}, h));
        }
        head.appendChild(tr);
        const body = $("slowest").tBodies[0];
        body.textContent = "";
        list.forEach((c, i) => {
            const r = el("tr", { "data-i": i });
            let count = 0;
            const countNodes = (n) => {
                count++;
                (n.children || []).forEach(countNodes);
            };
            countNodes(c.root);
            const started = new Date(Math.floor(c.start_ns / 1e6)).toISOString().replace("T", " ").replace("Z", "");
            for (const v of ["#" + c.seq, (c.thread.name || "") + " (" + c.thread.id + ")", started, dur(c.root.total_ns),
                String(count), c.root.exception ? "threw " + c.root.exception : "returned"]) {
                r.appendChild(el("td", {}, v));
            }
            r.addEventListener("click", () => showTimeline(i));
            body.appendChild(r);
        });
        if (list.length > 0) {
            showTimeline(0);
        } else {
            $("timeline").textContent = "";
        }
    }

    /* One call as Chrome's trace viewer lays it out: children one after
     * another from their parent's start, each as wide as its total. A task
     * handed off to another thread (an async node) takes none of its
     * parent's width: it is drawn below, on rows of its own under a label
     * naming its thread, where it began: its hand-off (handoff_ns after
     * the call's start, as measured) plus its queued_ns; the axis reaches
     * the end of the last task. */
    function showTimeline(i) {
        const call = summary.slowest[i];
        const box = $("timeline");
        const width = box.clientWidth - 2;
        const spans = [];       /* [node, start ns, row] */
        const tasks = [];       /* [node, start ns] of the tasks that ran */
        const lay = (n, start, row) => {
            spans.push([n, start, row]);
            let at = start;
            for (const k of n.children || []) {
                if (k.async) {
                    if (!k.pending && !k.rejected && !k.cancelled) {
                        tasks.push([k, k.handoff_ns + k.queued_ns]);
                    }
                    continue;
                }
                lay(k, at, row + 1);
                at += k.total_ns;
            }
        };
        const rowsOf = () => spans.reduce((m, [, , row]) => Math.max(m, row + 1), 0);
        lay(call.root, 0, 0);
        const labels = [];      /* [text, row] */
        for (let q = 0; q < tasks.length; q++) {
            const [k, start] = tasks[q];
            const row = rowsOf();
            labels.push(["thread " + (k.thread || "?") + ": a task handed off, queued " + dur(k.queued_ns || 0), row]);
            lay(k, start, row + 1);
        }
        const total = Math.max(1, spans.reduce((m, [n, start]) => Math.max(m, start + n.total_ns), 0));
        const frag = document.createDocumentFragment();
        for (const [text, row] of labels) {
            const d = el("div", { "class": "lane" }, text);
            d.style.top = (row * ROW_PX) + "px";
            frag.appendChild(d);
        }
        for (const [n, start, row] of spans) {
            const w = n.total_ns / total * width;
            if (w < MIN_PX) {
                continue;
            }
            const d = el("div", { "class": "span" + (n.async ? " async" : ""),
                title: n.class + "." + n.method + params(n.desc) + "  " + dur(n.total_ns) +
                " (" + n.calls + " call" + (n.calls === 1 ? "" : "s") + ")" +
                (n.async ? ", on " + n.thread + " after " + dur(n.queued_ns || 0) + " queued" : "") });
            d.style.left = (start / total * width).toFixed(1) + "px";
            d.style.width = w.toFixed(1) + "px";
            d.style.top = (row * ROW_PX) + "px";
            const self = n.total_ns > 0 ? n.self_ns / n.total_ns : 0;
            d.style.backgroundColor = n.throws > 0 ? "hsl(280, 60%, 75%)" : "hsl(" + (200 - 40 * self) + ", 60%, " + (78 - 14 * self) + "%)";
            if (w > 30) {
                d.textContent = n.class + "." + n.method;
            }
            frag.appendChild(d);
        }
        box.textContent = "";
        box.appendChild(el("div", { "class": "hint" }, "call #" + call.seq + ", " + dur(call.root.total_ns) +
            " (merged calls of a node are one span, as wide as their total" +
            (tasks.length > 0 ? "; tasks on other threads below, each on its own rows" : "") + ")"));
        const lane = el("div");
        lane.style.position = "relative";
        lane.style.height = (rowsOf() * ROW_PX) + "px";
        lane.appendChild(frag);
        box.appendChild(lane);
        for (const r of $("slowest").tBodies[0].rows) {
            r.classList.toggle("selected", Number(r.dataset.i) === i);
        }
    }

    /* ---- the facts -------------------------------------------------------------------------- */

    function drawFacts() {
        const dl = $("facts");
        dl.textContent = "";
        const fact = (k, v) => {
            if (v === undefined || v === null || v === "") {
                return;
            }
            const d = el("div");
            d.appendChild(el("dt", {}, k));
            d.appendChild(el("dd", { title: String(v) }, String(v)));
            dl.appendChild(d);
        };
        const s = summary;
        const root = s.root || (s.more_roots || [])[0];
        const entry = root ? root.class + "." + root.method + params(root.desc) : (request.class || "") + "." + (request.method || "");
        $("title").textContent = (isDiff ? "diff: " : "") + entry;
        document.title = (isDiff ? "mcalltree diff " : "mcalltree ") + entry;
        if (isDiff) {
            fact("base", data.diff.base.file + " (" + data.diff.base.calls + " entry calls)");
            fact("new", data.diff.new.file + " (" + data.diff.new.calls + " entry calls)");
            const counts = {};
            for (const n of nodes) {
                if (!n.virtual) {
                    counts[diffClass(n)] = (counts[diffClass(n)] || 0) + 1;
                }
            }
            fact("nodes", Object.keys(counts).map((k) => counts[k] + " " + k).join(", "));
            fact("gates", data.diff.failures.length ? data.diff.failures.length + " failed" : "none failed");
            drawFailures(data.diff.failures);
        } else {
            const hello = facts.hello || {};
            const jvm = hello.jvm || {};
            const plan = facts.plan || {};
            const end = facts.end || {};
            const probe = end.probe || plan.probe;
            fact("entry", entry);
            fact("merged", facts.merged ? facts.merged.length + " runs: " + facts.merged.join(", ") : undefined);
            fact("JVM", jvm.name ? jvm.name + " " + jvm.version + " (" + jvm.vendor + ")" : null);
            fact("JVM pid", currentRun.pid || hello.pid);
            fact("host", data.host);
            fact("depth", request.depth);
            fact("regex", request.regex === undefined ? undefined : request.regex + (request.include_jdk ? " (JDK included)" : ""));
            fact("entry calls", s.calls + (data.from_calls ? " (from the calls written)" : ""));
            fact("seen", s.seen);
            fact("not traced", s.not_traced);
            if (data.from_calls) {
                fact("warm-up", data.warmup_calls + " (included)");
            } else {
                fact("warm-up", s.warmup === undefined ? undefined : s.warmup + (request.include_warmup ? " (included)" : " (left out)"));
            }
            fact("sample", request.sample > 1 ? "1 in " + request.sample : undefined);
            fact("slowest kept", (s.slowest || []).length);
            fact("interval summaries", data.intervals || undefined);
            fact("instrumented", plan.instrumented === undefined ? undefined : plan.instrumented + " methods" +
                (plan.pending ? ", " + plan.pending + " pending" : ""));
            fact("probe cost", probe ? probe.ns.toFixed(1) + " ns" + (probe.trusted ? "" : " (not trusted)") : undefined);
            fact("ended", end.reason);
            fact("methods", (s.methods || []).length);
            drawGates(fact);
        }
        fact("nodes in tree", nodes.filter((n) => !n.virtual).length);
        $("origin").textContent = "written by " + data.tool + " on " + data.host + ", " + data.written;
    }

    /* The failed gates' messages, at the top of the page. */
    function drawFailures(messages) {
        const box = $("failures");
        box.hidden = messages.length === 0;
        box.textContent = "";
        if (!box.hidden) {
            box.appendChild(el("strong", {}, "Failed gates"));
            const ul = el("ul");
            for (const f of messages) {
                ul.appendChild(el("li", {}, f));
            }
            box.appendChild(ul);
        }
    }

    /* A run's gates (facts.gates; in the wrap form those of the JVM shown,
     * or all when the page merges the JVMs' calls): a fact counting them,
     * the failed ones' evidence at the top, and each gate with its verdict. */
    function drawGates(fact) {
        const list = $("gates");
        const pid = currentRun.pid;
        const gates = (facts.gates || []).filter((g) => g.pid === undefined || !pid || g.pid === pid);
        const name = (g) => g.gate + (g.pid !== undefined && !pid ? " (JVM pid " + g.pid + ")" : "");
        const failed = gates.filter((g) => !g.passed);
        list.textContent = "";
        list.hidden = gates.length === 0;
        if (gates.length === 0) {
            drawFailures([]);
            return;
        }
        fact("gates", (gates.length - failed.length) + " passed, " + failed.length + " failed");
        /* A message names its option, as on stderr; others get the gate's name. */
        const said = (g, m) => (g.pid !== undefined && !pid ? "JVM pid " + g.pid + ": " : "") +
            (m.startsWith("-") ? m : g.gate + ": " + m);
        drawFailures([].concat(...failed.map((g) => (g.failures.length ? g.failures : ["failed"]).map((m) => said(g, m)))));
        for (const g of failed.concat(gates.filter((x) => x.passed))) {
            const li = el("li", { "class": g.passed ? "passed" : "failed" });
            li.appendChild(el("span", { "class": "verdict" }, g.passed ? "passed" : "failed"));
            li.appendChild(el("code", {}, name(g)));
            list.appendChild(li);
        }
    }

    function drawLegend() {
        const lg = $("legend");
        lg.textContent = "";
        const item = (text, color, cls) => {
            const s = el("span", cls ? { "class": cls } : {}, text);
            s.style.backgroundColor = color;
            lg.appendChild(s);
        };
        if (isDiff) {
            item("added", "hsl(212, 70%, 62%)");
            item("removed", "hsl(0, 0%, 78%)");
            item("grown ≥" + CHANGE_PCT + "%", "hsl(4, 80%, 58%)");
            item("shrunk", "hsl(135, 70%, 55%)");
            item("same", "hsl(48, 30%, 86%)");
        } else {
            item("little self time", "hsl(50, 90%, 70%)");
            item("all self time", "hsl(0, 90%, 58%)");
            item("JDK / outside regex", "hsl(205, 45%, 70%)", "cell-jdk");
            if (nodes.some(isAsync)) {
                item("task on another thread", "hsl(50, 90%, 70%)", "cell-async");
            }
        }
    }

    /* ---- putting it together ----------------------------------------------------------------- */

    let currentRun = null;

    function show() {
        const t0 = performance.now();
        if (isDiff) {
            buildDiff();
        } else {
            buildRun(currentRun.summary);
        }
        if (!top) {
            $("icicle-note").textContent = "(no entry call was aggregated)";
            drawFacts();
            return 0;
        }
        zoom = top;
        selected = null;
        expanded.clear();
        for (const n of nodes) {
            if (n.depth < 2) {
                expanded.add(n);
            }
        }
        drawNote();
        drawFacts();
        drawLegend();
        drawIcicle();
        drawHead();
        drawTable();
        drawSlowest();
        select(top);
        return performance.now() - t0;
    }

    window.mctReport = { renderMs: 0, cells: 0, minPx: MIN_PX, nodeCount: () => nodes.length,
        nodeName: (id) => nodes[id].name };

    function drawNote() {
        $("icicle-note").textContent = "width: " + (isDiff ? "the new run's " : "") + stat +
            " time per entry call; colour: " + (isDiff ? "change of " + stat : "self time") + "; click to zoom";
    }

    $("stat").addEventListener("change", (ev) => {
        stat = ev.target.value;
        drawNote();
        drawIcicle();
        drawTable();
        if (selected) {
            select(selected);
        }
    });

    if (!isDiff) {
        const pick = $("run");
        data.runs.forEach((r, i) => {
            pick.appendChild(el("option", { value: i }, r.pid ? "pid " + r.pid : "run " + (i + 1)));
        });
        $("run-pick").hidden = data.runs.length < 2;
        pick.addEventListener("change", () => {
            currentRun = data.runs[Number(pick.value)];
            show();
        });
        currentRun = data.runs[0] || { pid: null, summary: { calls: 0, root: null, methods: [], slowest: [] } };
    } else {
        $("run-pick").hidden = true;
        currentRun = { pid: null };
    }
    window.mctReport.renderMs = show();
    window.addEventListener("resize", () => {
        if (top) {
            drawIcicle();
        }
    });
}());
