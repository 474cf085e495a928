// narrate studio: the page's entry (index.html loads it as the one module script). Plain ES
// modules, no build step and no dependencies, served as they are by the API (/studio/<name>);
// each view is a module of its own and the page's state is store.js's. This module starts the
// page: the language, the draft, the sign-in, then the view the URL names.
import { readBatch } from "./batch.js";
import { showVideo } from "./compose.js";
import { $, field } from "./dom.js";
import { restoreDraft } from "./draft.js";
import { initialLang, setLang, t } from "./i18n.js";
import { downloads } from "./job.js";
import { loadJobs } from "./jobs.js";
import { route } from "./router.js";
import { signedIn } from "./session.js";
import { set, state, subscribe } from "./store.js";
import "./tabs.js";

// The one global: the browser tests' hook (tests/e2e) into what the page knows and does.
// state: the store's state (read it; the page changes it); t: the page's words; readBatch,
// loadJobs: a view read again, as an event or the list's timer would; downloads: the job
// view's downloads drawn for artifacts no small test job makes (masters).
Object.defineProperty(window, "studio", { value: Object.freeze({ state, t, readBatch, loadJobs, downloads }) });

// Every view's lang subscriber draws it again in the new language (the first at boot: the
// static words, the style selects' "default"); signing in again says it in the header.
set({ lang: initialLang() });
$("lang").addEventListener("change", () => setLang(field("lang").value));
subscribe(["lang"], () => { signedIn(); });
field("lang").value = state.lang;
restoreDraft(showVideo);
signedIn().then(route);
