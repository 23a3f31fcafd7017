// html_check.mjs — drives headless Chromium (playwright-core) over pages of
// mcalltree -f html, for tests/e2e/html_report.sh. Subcommands:
//   gen N FILE [grow]   writes a synthetic summary of N nodes (grow: the same
//                       tree with node big.C3.m3's time tripled, big.C5.m5
//                       removed and big.Added</script><b>x.m added), for
//                       the diff and size tests
//   run PAGE PNG TERM   a run's page: no console error, no request, one
//                       rectangle per visible node, a click zooms, searching
//                       TERM highlights its nodes; a screenshot
//   diff PAGE PNG       the diff of gen's two summaries: grown, added and
//                       removed nodes coloured, the failed gate listed on top
//   gates PAGE PNG      a run's page with gates (facts.gates): each listed
//                       with its verdict, failed ones first, their evidence
//                       at the top, the passed/failed counts in the facts
//   merge PAGE PNG N    the page of mcalltree merge of N runs: no console
//                       error, no request, one rectangle per visible node,
//                       the files merged and the entry calls in the facts
//   async PAGE PNG THREAD  a page of --follow-async calls whose slowest
//                       call handed tasks off: its timeline draws each task
//                       below the caller's rows, hatched, under a label
//                       naming its thread (matching the regex THREAD), where
//                       it began (its handoff_ns plus queued_ns); the
//                       icicle hatches exactly the summary's async nodes
//                       (some drawn) and the table labels them
//   big PAGE SUMMARY PNG  PAGE with its data replaced by SUMMARY (a run of
//                       gen N; the page written next to SUMMARY): renders,
//                       stays responsive; prints the times
// The page's own performance.now() measures; nothing here asserts on time.
// Exits 1 with "FAIL: ..." lines on stderr when a check fails.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const npmDir = process.env.MCT_NPM_DIR;
const browserPath = process.env.MCT_CHROMIUM || "/usr/bin/chromium";
let failed = 0;

function fail(msg) {
    console.error("FAIL: " + msg);
    failed++;
}

// ---- synthetic summaries ------------------------------------------------------------

// A deterministic tree of n nodes, at most 8 levels, each node a method of
// its own; the values keep the summary's invariants (children's times add
// up to less than their parent's).
function gen(n, grow) {
    const calls = 100;
    let made = 0;
    let seed = 12345;
    const rand = () => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed / 2147483648;
    };
    const methods = [];
    // The times of nd at perEntry ns per entry call (self_ns: see fix).
    const setTime = (nd, perEntry) => {
        const t = Math.max(1, Math.round(perEntry));
        Object.assign(nd, { total_ns: t * calls, self_ns: t * calls, min_ns: Math.max(1, Math.floor(t / nd.calls_max / 2)),
            max_ns: t, p50_ns: t, p90_ns: Math.round(t * 1.1), p99_ns: Math.round(t * 1.3), entry_max_ns: Math.round(t * 1.5) });
    };
    const node = (cls, method, t, k) => {
        made++;
        methods.push({ class: cls, method: method, desc: "()V", calls: k * calls, calls_max: k, entries: calls });
        const nd = { class: cls, method: method, desc: "()V", calls: k * calls, throws: 0, entries: calls,
            calls_min: k, calls_max: k, children: [] };
        setTime(nd, t);
        return nd;
    };
    const root = node("big.Entry", "run", 5e8, 1);
    const queue = [[root, 0]];
    while (queue.length > 0 && made < n) {
        const [parent, depth] = queue.shift();
        const want = depth === 0 ? 12 : 2 + Math.floor(rand() * 5);
        const shares = [];
        for (let i = 0; i < want; i++) {
            shares.push(0.2 + rand());
        }
        const sum = shares.reduce((a, b) => a + b, 0);
        for (let i = 0; i < want && made < n; i++) {
            const t = parent.p50_ns * 0.9 * shares[i] / sum;
            const kid = node("big.C" + made, "m" + made, t, 1 + (made % 3));
            parent.children.push(kid);
            if (depth + 1 < 7) {
                queue.push([kid, depth + 1]);
            }
        }
    }
    const fix = (nd) => {
        const kids = nd.children.reduce((a, k) => a + k.total_ns, 0);
        nd.self_ns = nd.total_ns - kids;
        nd.children.forEach(fix);
    };
    if (grow) {
        root.children = root.children.filter((k) => k.class !== "big.C5");
        const c3 = root.children.find((k) => k.class === "big.C3");
        setTime(c3, c3.p50_ns * 3);
        // A name that would end the page's <script> unless the data is escaped.
        root.children.push(node("big.Added</script><b>x", "m", 2e7, 1));
        const kids = root.children.reduce((a, k) => a + k.p50_ns, 0);
        setTime(root, Math.max(root.p50_ns, kids * 1.1));
    }
    fix(root);
    return { type: "summary", final: true, calls: calls, not_traced: 0, root: root,
        methods: methods, slowest: [], warmup: 0, seen: calls };
}

// ---- the browser ---------------------------------------------------------------------

async function open(file) {
    const require = createRequire(path.join(npmDir, "node_modules") + "/");
    const { chromium } = require("playwright-core");
    const browser = await chromium.launch({ executablePath: browserPath, args: ["--no-sandbox"] });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const url = "file://" + path.resolve(file);
    page.on("console", (m) => {
        if (m.type() === "error" || m.type() === "warning") {
            fail("console " + m.type() + ": " + m.text());
        }
    });
    page.on("pageerror", (e) => fail("page error: " + e.message));
    page.on("request", (r) => {
        if (r.url() !== url) {
            fail("the page made a request: " + r.url());
        }
    });
    await page.goto(url);
    return { browser, page };
}

// The data blob of a page written by mcalltree.
function pageData(file) {
    const html = readFileSync(file, "utf8");
    const m = html.match(/<script id="mct-data" type="application\/json">([\s\S]*?)<\/script>/);
    if (!m) {
        throw new Error(file + ": no data blob");
    }
    return { html, data: JSON.parse(m[1]), at: m.index, len: m[0].length };
}

// The nodes the icicle must draw, by the rule the page states: width by p50,
// children share their parent's width in proportion (scaled down to fit when
// they add up to more), drawn when at least minPx wide.
function expectedCells(root, width, minPx) {
    let count = 0;
    const walk = (n, w) => {
        if (w < minPx) {
            return;
        }
        count++;
        const sum = n.children.reduce((a, k) => a + k.p50_ns, 0);
        const scale = Math.max(sum, n.p50_ns);
        if (scale > 0) {
            n.children.forEach((k) => walk(k, w * k.p50_ns / scale));
        }
    };
    walk(root, width);
    return count;
}

async function cells(page) {
    return page.$$eval("#icicle .cell", (cs) => cs.map((c) => ({
        id: c.dataset.id, text: c.textContent, cls: c.className, w: c.getBoundingClientRect().width,
        left: parseFloat(c.style.left), width: parseFloat(c.style.width), bg: getComputedStyle(c).backgroundColor,
    })));
}

async function checkCells(page, root, what) {
    const width = await page.$eval("#icicle", (e) => e.clientWidth - 2);
    const minPx = await page.evaluate(() => window.mctReport.minPx);
    const got = await cells(page);
    const want = expectedCells(root, width, minPx);
    if (got.length !== want) {
        fail(what + ": " + got.length + " rectangles in the icicle, want " + want + " (one per node at least " +
            minPx + " px wide)");
    }
    if (new Set(got.map((c) => c.id)).size !== got.length) {
        fail(what + ": a node has more than one rectangle");
    }
    return got;
}

// Clicks the widest node below the root: it is drawn full width, and the
// breadcrumbs end with it.
async function checkZoom(page, what) {
    const before = await cells(page);
    const kid = before.filter((c) => c.id !== before[0].id).sort((a, b) => b.width - a.width)[0];
    const t0 = await page.evaluate(() => performance.now());
    await page.click("#icicle .cell[data-id=\"" + kid.id + "\"]", { position: { x: 2, y: 5 } });
    const t1 = await page.evaluate(() => performance.now());
    const after = await cells(page);
    const zoomed = after.find((c) => c.id === kid.id);
    const full = await page.$eval("#icicle", (e) => e.clientWidth - 2);
    if (!zoomed || zoomed.left !== 0 || Math.abs(zoomed.width - full) > 0.5) {
        fail(what + ": after a click node " + kid.id + " is not drawn full width: " + JSON.stringify(zoomed));
    }
    const crumb = await page.$eval("#crumbs a:last-child", (a) => a.textContent);
    const name = await page.evaluate((id) => window.mctReport.nodeName(Number(id)), kid.id);
    if (crumb !== name) {
        fail(what + ": the breadcrumbs end with '" + crumb + "', not the node clicked, '" + name + "'");
    }
    await page.click("#zoom-out");
    return t1 - t0;
}

// Types term in the search box: exactly the drawn nodes whose name holds it
// are highlighted, and the count says how many of all nodes match.
async function checkSearch(page, term, all, what) {
    const t0 = await page.evaluate(() => performance.now());
    await page.fill("#search", term);
    const t1 = await page.evaluate(() => performance.now());
    const got = await cells(page);
    for (const c of got) {
        const name = await page.evaluate((id) => window.mctReport.nodeName(Number(id)), c.id);
        const match = name.toLowerCase().includes(term.toLowerCase());
        if (match !== c.cls.split(" ").includes("match")) {
            fail(what + ": search '" + term + "': node " + name + (match ? " not highlighted" : " highlighted"));
        }
    }
    if (!got.some((c) => c.cls.split(" ").includes("match"))) {
        fail(what + ": search '" + term + "' highlights nothing (no node drawn holds it?)");
    }
    const want = all.filter((n) => n.toLowerCase().includes(term.toLowerCase())).length;
    const said = await page.$eval("#search-count", (e) => e.textContent);
    if (!said.startsWith(want + " of " + all.length + " ")) {
        fail(what + ": search '" + term + "' says '" + said + "', want " + want + " of " + all.length);
    }
    await page.fill("#search", "");
    return t1 - t0;
}

function names(root) {
    const out = [];
    const walk = (n) => {
        out.push(n.class + "." + n.method);
        n.children.forEach(walk);
    };
    walk(root);
    return out;
}

async function checkRun(file, png, term) {
    const { data } = pageData(file);
    const summary = data.runs[0].summary;
    const { browser, page } = await open(file);
    await checkCells(page, summary.root, "run");
    await checkZoom(page, "run");
    await checkSearch(page, term, names(summary.root), "run");
    const rows = await page.$$eval("#tree tbody tr", (r) => r.length);
    if (rows < 2) {
        fail("run: the table has " + rows + " rows");
    }
    const facts = await page.$eval("#facts", (e) => e.textContent);
    for (const want of ["entry calls" + summary.calls, "JVM", "depth", "regex"]) {
        if (!facts.includes(want)) {
            fail("run: the facts lack '" + want + "': " + facts);
        }
    }
    const slow = await page.$$eval("#slowest tbody tr", (r) => r.length);
    if (slow !== summary.slowest.length) {
        fail("run: " + slow + " slowest calls listed, the summary keeps " + summary.slowest.length);
    }
    if (summary.slowest.length > 0 && await page.$$eval("#timeline .span", (s) => s.length) === 0) {
        fail("run: the slowest call's timeline is empty");
    }
    console.log("run: rendered in " + (await page.evaluate(() => window.mctReport.renderMs)).toFixed(1) + " ms");
    await page.screenshot({ path: png, fullPage: true });
    await browser.close();
}

async function checkDiff(file, png) {
    const { browser, page } = await open(file);
    const byName = async (want) => {
        const got = await cells(page);
        for (const c of got) {
            const name = await page.evaluate((id) => window.mctReport.nodeName(Number(id)), c.id);
            if (name === want) {
                return c;
            }
        }
        return null;
    };
    const expect = async (cls, kind, hue) => {
        const c = await byName(cls);
        if (!c) {
            fail("diff: no rectangle for " + cls);
            return;
        }
        if (!c.cls.split(" ").includes("d-" + kind)) {
            fail("diff: " + cls + " is not marked " + kind + ": " + c.cls);
        }
        const [r, g, b] = c.bg.match(/\d+/g).map(Number);
        if (!hue(r, g, b)) {
            fail("diff: " + cls + " (" + kind + ") is coloured " + c.bg);
        }
    };
    await expect("big.C3.m3", "grown", (r, g, b) => r > g + 40 && r > b + 40);
    await expect("big.Added</script><b>x.m", "added", (r, g, b) => b > r + 40);
    await expect("big.C5.m5", "removed", (r, g, b) => Math.abs(r - g) < 8 && Math.abs(g - b) < 8);
    const failures = await page.$eval("#failures", (e) => (e.hidden ? "" : e.textContent));
    if (!/Failed gates.*big\.C3\.m3/.test(failures)) {
        fail("diff: the failed gate on big.C3.m3 is not listed at the top: '" + failures + "'");
    }
    console.log("diff: rendered in " + (await page.evaluate(() => window.mctReport.renderMs)).toFixed(1) + " ms");
    await page.screenshot({ path: png, fullPage: false });
    await browser.close();
}

async function checkGates(file, png) {
    const { data } = pageData(file);
    const gates = data.facts.gates || [];
    const bad = gates.filter((g) => !g.passed);
    const { browser, page } = await open(file);
    if (gates.length === 0) {
        fail("gates: the page's data holds no gates");
    }
    const items = await page.$$eval("#gates li", (ls) => ls.map((l) => ({ cls: l.className, text: l.textContent })));
    const order = bad.concat(gates.filter((g) => g.passed));
    if (items.length !== gates.length) {
        fail("gates: " + items.length + " gates listed, the data holds " + gates.length);
    }
    order.forEach((g, i) => {
        const it = items[i] || { cls: "", text: "" };
        const verdict = g.passed ? "passed" : "failed";
        if (it.cls !== verdict || it.text !== verdict + g.gate) {
            fail("gates: item " + i + " is '" + it.text + "' (" + it.cls + "), want " + verdict + " " + g.gate);
        }
    });
    const top = await page.$eval("#failures", (e) => (e.hidden ? "" : e.textContent));
    for (const g of bad) {
        for (const m of g.failures) {
            if (!top.includes(m)) {
                fail("gates: the failed gate's evidence '" + m + "' is not at the top: '" + top + "'");
            }
        }
    }
    if (bad.length > 0 && !top.startsWith("Failed gates")) {
        fail("gates: no 'Failed gates' box at the top: '" + top + "'");
    }
    const facts = await page.$eval("#facts", (e) => e.textContent);
    const want = "gates" + (gates.length - bad.length) + " passed, " + bad.length + " failed";
    if (!facts.includes(want)) {
        fail("gates: the facts lack '" + want + "': " + facts);
    }
    await page.screenshot({ path: png, fullPage: false });
    await browser.close();
}

async function checkMerge(file, png, n) {
    const { data } = pageData(file);
    const summary = data.runs[0].summary;
    const { browser, page } = await open(file);
    await checkCells(page, summary.root, "merge");
    await checkZoom(page, "merge");
    const facts = await page.$eval("#facts", (e) => e.textContent);
    for (const want of ["merged" + n + " runs: ", "entry calls" + summary.calls]) {
        if (!facts.includes(want)) {
            fail("merge: the facts lack '" + want + "': " + facts);
        }
    }
    await page.screenshot({ path: png, fullPage: false });
    await browser.close();
}

// The depth of node n in the tree under root (root: 0), or -1.
function depthOf(root, n) {
    if (root === n) {
        return 0;
    }
    for (const k of root.children || []) {
        const d = depthOf(k, n);
        if (d >= 0) {
            return d + 1;
        }
    }
    return -1;
}

async function checkAsync(file, png, thread) {
    const { data } = pageData(file);
    const call = data.runs[0].summary.slowest[0];
    const depth = (n) => 1 + Math.max(0, ...(n.children || []).filter((k) => !k.async).map(depth));
    const tasks = (call.root.children || []).filter((k) => k.async && !k.pending && !k.rejected && !k.cancelled);
    const { browser, page } = await open(file);
    if (tasks.length === 0) {
        fail("async: the slowest call handed no task off");
    }
    const rowPx = await page.$eval("#timeline .span", (d) => d.offsetHeight);
    const spans = await page.$$eval("#timeline .span", (ds) => ds.map((d) => ({ cls: d.className, top: d.offsetTop })));
    const lanes = await page.$$eval("#timeline .lane", (ds) => ds.map((d) => ({ text: d.textContent, top: d.offsetTop })));
    const below = depth(call.root) * rowPx;
    const asyncSpans = spans.filter((s) => s.cls.split(" ").includes("async"));
    if (asyncSpans.length !== tasks.length) {
        fail("async: " + asyncSpans.length + " task spans drawn, the call has " + tasks.length + " tasks");
    }
    for (const s of asyncSpans) {
        if (s.top < below) {
            fail("async: a task span at " + s.top + " px, among the caller's rows (above " + below + " px)");
        }
    }
    const re = new RegExp("^thread " + thread + ": ");
    if (lanes.length !== tasks.length || !lanes.every((l) => re.test(l.text) && l.top >= below)) {
        fail("async: the tasks' labels are " + JSON.stringify(lanes) + ", want " + tasks.length + " naming " + thread +
            " below " + below + " px");
    }
    // Each task's span begins at its hand-off plus its queue time, on the
    // axis of the call (the timeline's width is the end of the last task).
    const boxPx = await page.$eval("#timeline", (e) => e.clientWidth - 2);
    const ends = [call.root.total_ns, ...tasks.map((k) => k.handoff_ns + k.queued_ns + k.total_ns)];
    const axis = Math.max(...ends);
    const lefts = await page.$$eval("#timeline .span.async", (ds) => ds.map((d) => parseFloat(d.style.left)));
    tasks.forEach((k, i) => {
        const want = (k.handoff_ns + k.queued_ns) / axis * boxPx;
        if (!(Math.abs(lefts[i] - want) <= 1)) {
            fail("async: task " + i + " drawn at " + lefts[i] + " px, want " + want.toFixed(1) + " (handoff_ns " +
                k.handoff_ns + " + queued_ns " + k.queued_ns + ")");
        }
    });
    // The icicle and the table: the summary's nodes in the page's order
    // (pre-order of the root) say which are async.
    const order = [];
    const walk = (n) => {
        order.push(n);
        (n.children || []).forEach(walk);
    };
    walk(data.runs[0].summary.root);
    const want = order.filter((n) => n.async).length;
    if (want === 0) {
        fail("async: the summary marks no node async");
    }
    const drawn = await page.$$eval("#icicle .cell", (cs) => cs.map((c) => ({ id: Number(c.dataset.id), cls: c.className })));
    let hatched = 0;
    for (const c of drawn) {
        const is = c.cls.split(" ").includes("async");
        hatched += is ? 1 : 0;
        if (is !== Boolean(order[c.id] && order[c.id].async)) {
            fail("async: icicle cell " + c.id + " (" + (order[c.id] || {}).method + ") is" + (is ? "" : " not") +
                " hatched");
        }
    }
    if (hatched === 0) {
        fail("async: no async node hatched in the icicle");
    }
    const shown = order.filter((n) => n.async && depthOf(data.runs[0].summary.root, n) < 3).length;
    const tagged = await page.$$eval("#tree tbody tr .async-tag", (ts) => ts.length);
    if (tagged !== shown) {
        fail("async: " + tagged + " table rows labelled async, want " + shown);
    }
    await page.screenshot({ path: png, fullPage: true });
    await browser.close();
}

async function checkBig(file, summaryFile, png) {
    const summary = JSON.parse(readFileSync(summaryFile, "utf8"));
    const { html, data, at, len } = pageData(file);
    data.runs = [{ pid: null, summary: summary }];
    const blob = "<script id=\"mct-data\" type=\"application/json\">" + JSON.stringify(data).replace(/</g, "\\u003c") +
        "</script>";
    const big = path.join(path.dirname(summaryFile), "html_big.html");
    writeFileSync(big, html.slice(0, at) + blob + html.slice(at + len));
    const { browser, page } = await open(big);
    const nodes = await page.evaluate(() => window.mctReport.nodeCount());
    if (nodes !== names(summary.root).length) {
        fail("big: the page holds " + nodes + " nodes, the summary " + names(summary.root).length);
    }
    const got = await checkCells(page, summary.root, "big");
    const render = await page.evaluate(() => window.mctReport.renderMs);
    const zoom = await checkZoom(page, "big");
    const search = await checkSearch(page, "C1", names(summary.root), "big");
    console.log("big: " + nodes + " nodes, " + got.length + " drawn: rendered in " + render.toFixed(1) +
        " ms; a zoom took " + zoom.toFixed(1) + " ms, a search " + search.toFixed(1) + " ms (page clock)");
    await page.screenshot({ path: png });
    await browser.close();
}

const [cmd, ...args] = process.argv.slice(2);
process.on("unhandledRejection", (e) => {
    fail(cmd + ": " + (e && e.message ? e.message : e));
    process.exit(1);
});
if (cmd === "gen") {
    writeFileSync(args[1], JSON.stringify(gen(Number(args[0]), args[2] === "grow")) + "\n");
} else if (cmd === "run") {
    await checkRun(args[0], args[1], args[2]);
} else if (cmd === "diff") {
    await checkDiff(args[0], args[1]);
} else if (cmd === "gates") {
    await checkGates(args[0], args[1]);
} else if (cmd === "merge") {
    await checkMerge(args[0], args[1], Number(args[2]));
} else if (cmd === "async") {
    await checkAsync(args[0], args[1], args[2]);
} else if (cmd === "big") {
    await checkBig(args[0], args[1], args[2]);
} else {
    console.error("usage: html_check.mjs gen|run|diff|gates|merge|async|big ...");
    process.exit(2);
}
process.exit(failed > 0 ? 1 : 0);
