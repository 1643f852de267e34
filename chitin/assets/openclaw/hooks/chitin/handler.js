// chitin's OpenClaw hook (installed by `chitin hooks install openclaw`).
//
// agent:bootstrap            -> PERSONALITY.md from `chitin render`, added to the bootstrap files
//                               (rendered once per session and store state, see bootstrap())
// command:new, command:reset -> `chitin reflect --queue`, so the session is reflected on later
// session:auto-reset         -> the same, for OpenClaw's daily and idle resets
//                               (with where the ended session's events are: issue 26)
//
// chitin runs asynchronously (the gateway is never blocked), with its arguments as a
// list (no shell) and a timeout. Every failure is swallowed: the agent always goes on.
// After a failure or a timeout, chitin is not run again for that store for a while
// (BACKOFF_MS), so a broken or hanging chitin costs the turns at most one timeout.

import { execFile } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const BUDGET = "5000"; // tokens
// A first render on a new store, measured through OpenClaw's own bootstrap, took at most
// a few seconds (tests/test_openclaw_host.py); this leaves room for a slow, busy machine
// without keeping a session waiting long when chitin hangs.
const DEFAULT_TIMEOUT_MS = 15000;
// How long a failed or timed-out chitin is left alone, per store.
const DEFAULT_BACKOFF_MS = 5 * 60 * 1000;
const PERSONALITY = "PERSONALITY.md";
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;
const HERE = path.dirname(fileURLToPath(import.meta.url));

// The first hint whose name appears in the session key says where the agent talks.
const CHANNEL_HINTS = [
  ["telegram", "telegram chat"],
  ["discord", "discord group chat"],
  ["slack", "slack work chat"],
  ["webchat", "webchat direct conversation"],
  ["subagent", "sub-agent task execution"],
];
// Folder names that say nothing about the work done in them.
const GENERIC_FOLDERS = new Set(["workspace", "clawd", ""]);

function debug(...args) {
  if (process.env.CHITIN_DEBUG) console.error("[chitin]", ...args);
}

// setTimeout's longest wait: Node fires a longer one at once (with a warning).
const MOST_MS = 2 ** 31 - 1;

// A knob in whole milliseconds, else the default: parseInt would read "1e9" as 1 and
// "15s" as 15.
function milliseconds(name, fallback, least = 1) {
  const text = (process.env[name] ?? "").trim();
  const value = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN;
  return value >= least && value <= MOST_MS ? value : fallback;
}

function timeoutMs() {
  return milliseconds("CHITIN_HOOK_TIMEOUT_MS", DEFAULT_TIMEOUT_MS);
}

// What `chitin hooks install openclaw` recorded beside this file (chitin.json): the
// chitin that installed the hook, and the store named at install, if any.
function installed() {
  try {
    const data = JSON.parse(readFileSync(path.join(HERE, "chitin.json"), "utf8"));
    return data && typeof data === "object" ? data : {};
  } catch {
    return {}; // not installed by chitin, or unreadable
  }
}

// The chitin to run: $CHITIN_BIN; else the chitin that installed this hook, by absolute
// path, since the gateway's PATH may not hold a virtual environment's chitin; else
// `chitin` on PATH.
function chitinCommand() {
  if (process.env.CHITIN_BIN) return [process.env.CHITIN_BIN];
  const { command } = installed();
  const valid = Array.isArray(command) && command.length > 0;
  if (valid && command.every((part) => typeof part === "string") && existsSync(command[0])) {
    return command;
  }
  return ["chitin"];
}

// The store named at install: chitin is told it, since the gateway runs in a folder and
// an environment of its own.
function boundStore() {
  const { store } = installed();
  return typeof store === "string" && store ? store : null;
}

// Per store: the time before which chitin is not run again, after it failed there.
const backingOff = new Map();

function resting(store) {
  const until = backingOff.get(store);
  if (until === undefined) return false;
  if (Date.now() < until) return true;
  backingOff.delete(store);
  return false;
}

function backOff(store) {
  const wait = milliseconds("CHITIN_HOOK_BACKOFF_MS", DEFAULT_BACKOFF_MS, 0); // 0: no back-off
  if (wait === 0) return;
  backingOff.set(store, Date.now() + wait);
  debug(`not running chitin for ${store} for the next ${Math.round(wait / 1000)} s`);
}

// What runOnce resolves with when chitin was stopped for taking too long.
const TIMED_OUT = Symbol("timed out");

// Run chitin; resolve with its stdout, or with null on any failure, and then leave the
// store alone for a while. With restOnRefusal false, a chitin that answered with an
// error (a session end's marker it refused: no store yet, a session key it will not
// keep) rests nothing: that refusal is about the session that ended, and the session
// /new starts next must still get its PERSONALITY.md. A timeout rests the store
// whatever was asked: a hanging chitin would hang again. Never rejects.
async function runChitin(args, { restOnRefusal = true } = {}) {
  const store = storeFolder();
  if (resting(store)) return null;
  const bound = boundStore();
  const answer = await runOnce(bound ? ["--store", bound, ...args] : args);
  if (typeof answer === "string") backingOff.delete(store);
  else if (answer === TIMED_OUT || restOnRefusal) backOff(store);
  return typeof answer === "string" ? answer : null;
}

function runOnce(args) {
  const [program, ...prefix] = chitinCommand();
  const verb = args[0] === "--store" ? args[2] : args[0];
  return new Promise((resolve) => {
    let settled = false;
    let child;
    const finish = (value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    const timer = setTimeout(() => {
      debug(`${program} ${verb} took longer than ${timeoutMs()} ms; stopped`);
      stop(child);
      finish(TIMED_OUT);
    }, timeoutMs());
    try {
      child = execFile(
        program,
        [...prefix, ...args],
        { maxBuffer: MAX_OUTPUT_BYTES, windowsHide: true, detached: process.platform !== "win32" },
        (error, stdout, stderr) => {
          if (error) {
            debug(`${program} ${verb} failed: ${error.message}`, String(stderr ?? "").trim());
            finish(null);
          } else {
            finish(String(stdout));
          }
        },
      );
      child.on("error", (error) => {
        debug(`${program} could not run: ${error.message}`);
        finish(null);
      });
    } catch (error) {
      debug(`${program} could not run: ${error?.message ?? error}`);
      finish(null);
    }
  });
}

// Kill chitin and anything it started (it runs in a process group of its own), and
// let go of its pipes, so that nothing it left behind keeps the gateway waiting.
function stop(child) {
  if (!child) return;
  try {
    if (process.platform !== "win32" && child.pid) process.kill(-child.pid, "SIGKILL");
    else child.kill("SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
  child.stdout?.destroy();
  child.stderr?.destroy();
}

function sessionQuery(event, context) {
  const parts = [];
  if (context.agentId) parts.push(`agent: ${context.agentId}`);
  const key = String(event.sessionKey || context.sessionKey || "").toLowerCase();
  const hint = CHANNEL_HINTS.find(([needle]) => key.includes(needle));
  if (hint) parts.push(hint[1]);
  const folder = context.workspaceDir ? path.basename(String(context.workspaceDir)) : "";
  if (!GENERIC_FOLDERS.has(folder.toLowerCase())) parts.push(`workspace ${folder}`);
  return parts.length > 0 ? parts.join(", ") : "general assistant session";
}

function hasPersonality(files) {
  return files.some((file) => file && file.name === PERSONALITY);
}

// Sessions whose bootstrap files OpenClaw cuts to an allowlist after the hooks ran
// (SUBAGENT_BOOTSTRAP_ALLOWLIST: AGENTS.md; CRON_BOOTSTRAP_ALLOWLIST: AGENTS.md,
// SOUL.md, IDENTITY.md, USER.md): a PERSONALITY.md would be dropped, so chitin does
// not run for them. The keys as OpenClaw's isSubagentSessionKey and isCronSessionKey
// read them: "subagent:...", or "agent:<id>:subagent:..." / "agent:<id>:cron:...".
function isTrimmedSession(sessionKey) {
  const key = String(sessionKey ?? "").trim().toLowerCase();
  if (key.startsWith("subagent:")) return true;
  const scoped = /^agent:([^:]*):(.*)$/.exec(key);
  if (!scoped || !scoped[1].trim() || !scoped[2] || scoped[2].startsWith(":")) return false;
  return scoped[2].startsWith("subagent:") || scoped[2].startsWith("cron:");
}

// The store chitin will use, by chitin's own rule (chitin/location.py): the one named
// at install; else $CHITIN_STORE; else the gateway's folder or the nearest above it
// that holds .git and is chitin's (insights/ may be missing from a clone of a store with no
// insight: git keeps no empty folder); else ${XDG_DATA_HOME:-~/.local/share}/chitin.
function storeFolder() {
  const home = os.homedir();
  const expand = (value) => (value === "~" || value.startsWith("~/") ? home + value.slice(1) : value);
  const named = boundStore() || process.env.CHITIN_STORE;
  if (named) return path.resolve(expand(named));
  let here = null;
  try {
    here = enclosingStore(process.cwd());
  } catch {
    // the gateway's folder is gone: no store there
  }
  if (here) return here;
  // A relative $XDG_DATA_HOME is ignored, by the XDG rule (as chitin ignores it).
  const given = expand(process.env.XDG_DATA_HOME || "");
  const data = path.isAbsolute(given) ? given : path.join(home, ".local", "share");
  return path.join(path.resolve(data), "chitin");
}

function enclosingStore(start) {
  for (let folder = path.resolve(start); ; folder = path.dirname(folder)) {
    try {
      if (existsSync(path.join(folder, ".git")) && isChitins(folder)) return folder;
    } catch {
      // unreadable: not a store we can use
    }
    if (path.dirname(folder) === folder) return null;
  }
}

// A git repository with insights/ is a store when it is chitin's (chitin/location.py's
// chitins): a type folder under insights/, or the .gitattributes `chitin init` writes.
const TYPE_FOLDERS = ["behavioral", "personality", "relational", "principle", "skill", "trigger"];

function isChitins(folder) {
  const typed = (kind) => {
    try {
      return statSync(path.join(folder, "insights", kind)).isDirectory();
    } catch {
      return false;
    }
  };
  if (TYPE_FOLDERS.some(typed)) return true;
  try {
    return readFileSync(path.join(folder, ".gitattributes"), "utf8").includes("merge=chitin");
  } catch {
    return false;
  }
}

function readTrimmed(file) {
  return readFileSync(file, "utf8").trim();
}

// The commit the store's HEAD names, from .git without running git.
function headCommit(root) {
  const gitDir = path.join(root, ".git");
  const head = readTrimmed(path.join(gitDir, "HEAD"));
  if (!head.startsWith("ref: ")) return head;
  const ref = head.slice(5).trim();
  try {
    return readTrimmed(path.join(gitDir, ref));
  } catch {
    const packed = readTrimmed(path.join(gitDir, "packed-refs")).split("\n");
    const line = packed.find((entry) => entry.endsWith(` ${ref}`));
    return line ? line.split(" ")[0] : `unborn ${ref}`;
  }
}

// What the rendered text depends on, cheaply (a few stats and two small reads, no
// process): the commit at the store's HEAD, which chitin moves on every change it makes
// (and `chitin render` names in its output), and the change times of the insight
// folders, which move when a file in them is added, removed or replaced (chitin's
// writes, a pull, most editors' saves) before anything is committed.
function storeState(root) {
  const parts = [root];
  try {
    parts.push(headCommit(root));
  } catch {
    parts.push("no head");
  }
  try {
    const insights = path.join(root, "insights");
    parts.push(`${statSync(insights).mtimeMs}`);
    for (const name of readdirSync(insights).sort()) {
      parts.push(`${name}@${statSync(path.join(insights, name)).mtimeMs}`);
    }
  } catch {
    parts.push("no insights");
  }
  return parts.join("\n");
}

// Rendered texts, per session: OpenClaw hands the hook a fresh copy of its cached
// bootstrap list on every agent run, so the list itself cannot remember that chitin ran.
// An entry is reused while the session's query and the store's state are unchanged; a
// render in flight is shared by the bootstraps that wait for it.
const MAX_REMEMBERED = 256;
const rendered = new Map();

function renderFor(sessionKey, query) {
  const state = storeState(storeFolder());
  const key = `${sessionKey}\u0000${query}`;
  const known = rendered.get(key);
  if (known && known.state === state) return known.text;
  // --session notes which insights this session was given, for its reflection.
  const text = runChitin(["render", "--query", query, "--budget", BUDGET, "--session", sessionKey]).then((answer) => {
    const usable = typeof answer === "string" && answer.trim() ? answer : null;
    if (usable === null && rendered.get(key)?.text === text) rendered.delete(key); // try again next run
    return usable;
  });
  rendered.delete(key);
  rendered.set(key, { state, text });
  if (rendered.size > MAX_REMEMBERED) rendered.delete(rendered.keys().next().value);
  return text;
}

async function bootstrap(event) {
  const context = event.context ?? {};
  const files = context.bootstrapFiles;
  if (!Array.isArray(files)) return;
  if (hasPersonality(files)) return; // one is there already (a reused list): leave it be
  const sessionKey = String(event.sessionKey || context.sessionKey || context.sessionId || "unknown");
  if (isTrimmedSession(sessionKey)) return;
  const workspace = String(context.workspaceDir || context.repo || os.homedir());
  const text = await renderFor(sessionKey, sessionQuery(event, context));
  if (typeof text !== "string") return;
  if (hasPersonality(files)) return; // another bootstrap of this list finished first
  files.push({ name: PERSONALITY, path: path.join(workspace, PERSONALITY), content: text, missing: false });
}

// OpenClaw's state folder, as it resolves it: $OPENCLAW_STATE_DIR, else ~/.openclaw.
function stateFolder() {
  const home = process.env.OPENCLAW_HOME?.trim() || os.homedir();
  const state = process.env.OPENCLAW_STATE_DIR?.trim();
  const expand = (value) => (value === "~" || value.startsWith("~/") ? home + value.slice(1) : value);
  return state ? path.resolve(expand(state)) : path.join(home, ".openclaw");
}

// The agent a session key names ("agent:<id>:..."), else OpenClaw's default agent.
function agentOf(sessionKey) {
  const scoped = /^agent:([^:]+):/.exec(String(sessionKey ?? "").trim().toLowerCase());
  return scoped ? scoped[1] : "main";
}

// Where the ended session's events are, for chitin's digest: the session file when
// OpenClaw hands one over, else its agent database (the events' table, by session id),
// when it is there and the ended session has an id to look up. chitin only reads
// either, later.
function eventsPlace(sessionKey, ended, sessionId) {
  const file = ended && typeof ended.sessionFile === "string" ? ended.sessionFile.trim() : "";
  if (file) return ["--transcript", file];
  if (!sessionId) return []; // nothing to look up: a marker as chitin 1.x queued it
  const database = path.join(stateFolder(), "agents", agentOf(sessionKey), "agent", "openclaw-agent.sqlite");
  return existsSync(database) ? ["--agent-database", database] : [];
}

// /new and /reset: the chat's session key, and the id of the session that ended
// (previousSessionEntry); an automatic reset names the ended session in sessionEntry.
async function queueReflection(event, reason, ended) {
  const sessionKey = String(event.sessionKey || "unknown");
  const args = ["reflect", "--queue", "--session-key", sessionKey];
  const sessionId = ended && typeof ended.sessionId === "string" ? ended.sessionId.trim() : "";
  if (sessionId) args.push("--session-id", sessionId);
  const place = eventsPlace(sessionKey, ended, sessionId);
  if (!event.sessionKey && !sessionId && place.length === 0) {
    // A marker "unknown" would give the digest nothing to read, and push a real one out.
    debug("the event names no session (no session key, id or file); nothing queued");
    return;
  }
  args.push(...place);
  await runChitin([...args, "--reason", reason], { restOnRefusal: false });
}

export default async function chitinHook(event) {
  try {
    if (!event || typeof event !== "object") return;
    if (event.type === "agent" && event.action === "bootstrap") {
      await bootstrap(event);
    } else if (event.type === "command" && (event.action === "new" || event.action === "reset")) {
      await queueReflection(event, event.action, event.context?.previousSessionEntry);
    } else if (event.type === "session" && event.action === "auto-reset") {
      const reason = event.context?.reason === "daily" ? "daily" : "idle";
      await queueReflection(event, reason, event.context?.sessionEntry);
    }
  } catch (error) {
    debug("hook failed:", error?.message ?? error);
  }
}
