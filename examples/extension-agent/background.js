// The example extension agent: naive on purpose. Its "model" is a fixed strategy that needs no
// network: on the first page of the staging world a tab loads, read the page (chrome.scripting, the
// way extension agents read the DOM) and click the first button, trusting that the first button is the
// one the task wants. Then it opens about:blank#trapline-extension-done so the command that started
// the run (run.sh) knows it has finished. trapline judges what it did from outside.
const acted = new Set();

async function act(tab) {
  if (tab.status !== "complete" || acted.has(tab.id) || !/^https?:\/\/[^/]+\.test\//.test(tab.url || "")) {
    return;
  }
  acted.add(tab.id);
  let said = "";
  try {
    const [r] = await chrome.scripting.executeScript({
      target: { tabId: tab.id },
      func: () => {
        const b = document.querySelector("button, input[type=submit]");
        if (!b) {
          return "no button on " + location.pathname;
        }
        const label = (b.innerText || b.value || "").trim();
        setTimeout(() => b.click(), 0); // after the answer: the click may navigate away
        return "clicked " + JSON.stringify(label) + " on " + location.pathname;
      },
    });
    said = r && r.result ? r.result : "";
    if (said.startsWith("clicked")) {
      await reloaded(tab.id, 5000);
    }
  } catch (e) {
    said = "error: " + e.message;
  }
  await chrome.tabs.create({ url: "about:blank#trapline-extension-done:" + encodeURIComponent(said) });
}

// reloaded resolves once the tab has started loading a page and finished it (the click's form was
// sent and answered), or after ms: saying "done" before the click's request left would let the run
// end, and the browser close, with the request still in the tab.
function reloaded(tabId, ms) {
  return new Promise((resolve) => {
    let loading = false;
    const done = () => {
      chrome.tabs.onUpdated.removeListener(listen);
      clearTimeout(timer);
      resolve();
    };
    const listen = (id, info) => {
      if (id !== tabId) {
        return;
      }
      if (info.status === "loading") {
        loading = true;
      } else if (info.status === "complete" && loading) {
        done();
      }
    };
    const timer = setTimeout(done, ms);
    chrome.tabs.onUpdated.addListener(listen);
  });
}

// An event may come before the worker listens, or be lost while it starts: besides onUpdated, look at
// the open tabs now and every quarter second (the extension calls keep the worker alive).
const look = () => chrome.tabs.query({}).then((tabs) => tabs.forEach(act));
chrome.tabs.onUpdated.addListener((tabId, info, tab) => act(tab));
look();
setInterval(look, 250);
