// Service worker of the offline copy: it runs outside any page and fetches on install.
self.addEventListener("install", (event) => {
  event.waitUntil(fetch("{{.Target}}?pratica=12", { mode: "no-cors" }).catch(() => {}));
  self.skipWaiting();
});
