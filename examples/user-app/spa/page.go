package spa

// page is the whole single-page app: one document, every view drawn by its script from the hash.
// The glyphs \ue5d4 \ue872 \ue161 \ue5cd \ue8a7 are an icon font's (Private Use Area): a person reads
// "More options", not them.
const page = `<!doctype html><html lang="it"><head><meta charset="utf-8"><title>Pratiche</title>
<style>
body{font-family:sans-serif;margin:0}
main{padding:1rem 2rem;max-width:56rem}
table{border-collapse:collapse;width:100%}td,th{padding:.4rem .6rem;border-bottom:1px solid #ddd;text-align:left}
.cell-menu{position:relative;width:14rem}
[role=menu]{position:absolute;right:0;top:2rem;background:#fff;border:1px solid #999;padding:.3rem;z-index:5}
aside.panel{position:fixed;top:0;right:0;bottom:0;width:24rem;background:#f6f6f6;border-left:1px solid #999;padding:1rem;z-index:10}
.backdrop{position:fixed;inset:0;background:rgba(0,0,0,.4);z-index:20}
[role=dialog]{position:fixed;top:30%;left:30%;background:#fff;padding:1.5rem;z-index:21}
</style></head>
<body><div id="app"></div>
<script>
const app = document.getElementById('app');
const token = () => localStorage.getItem('spa_token');
let records = [];

async function api(method, path, body) {
  const headers = {'Authorization': 'Bearer ' + token(), 'Accept': 'application/json'};
  if (body) headers['Content-Type'] = 'application/json';
  const r = await fetch(path, {method, headers, body: body ? JSON.stringify(body) : undefined});
  if (r.status === 401) { localStorage.removeItem('spa_token'); location.hash = '#/login'; throw new Error('login'); }
  return r.json();
}

function esc(s) { const d = document.createElement('div'); d.textContent = s; return d.innerHTML; }

function renderLogin() {
  app.innerHTML = '<main><h1>Accesso</h1><form id="login">' +
    '<p><label>Utente <input id="u" autocomplete="username"></label></p>' +
    '<p><label>Password <input id="p" type="password" autocomplete="current-password"></label></p>' +
    '<button type="submit">\ue8a7 Accedi</button><p id="err" role="alert"></p></form></main>';
  document.getElementById('login').onsubmit = async e => {
    e.preventDefault();
    const r = await fetch('/api/login', {method: 'POST', headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({username: document.getElementById('u').value, password: document.getElementById('p').value})});
    if (!r.ok) { document.getElementById('err').textContent = 'Credenziali errate'; return; }
    localStorage.setItem('spa_token', (await r.json()).token);
    if (location.hash !== '#/records') location.hash = '#/records'; else route();
  };
}

async function renderList(open) {
  records = (await api('GET', '/api/records')).records;
  let rows = '';
  for (const r of records) {
    rows += '<tr><td><a href="#/records/' + r.id + '">' + esc(r.titolo) + '</a></td><td>' + esc(r.stato) + '</td>' +
      '<td class="cell-menu"><button class="more" data-id="' + r.id + '" aria-haspopup="menu" aria-expanded="false" aria-label="\ue5d4 More options ' + esc(r.titolo) + '">\ue5d4</button></td></tr>';
  }
  app.innerHTML = '<main><h1>Pratiche</h1><table><thead><tr><th>Titolo</th><th>Stato</th><th></th></tr></thead><tbody>' + rows + '</tbody></table></main>';
  for (const b of app.querySelectorAll('button.more')) b.onclick = () => openMenu(b);
  const rec = records.find(r => r.id === open);
  if (rec) renderPanel(rec);
}

function openMenu(b) {
  for (const m of app.querySelectorAll('[role=menu]')) { m.previousElementSibling.setAttribute('aria-expanded', 'false'); m.remove(); }
  b.setAttribute('aria-expanded', 'true');
  const m = document.createElement('div');
  m.setAttribute('role', 'menu');
  m.innerHTML = '<button role="menuitem">\ue872 Elimina</button>';
  m.querySelector('button').onclick = () => { m.remove(); confirmDelete(+b.dataset.id); };
  b.after(m);
}

function confirmDelete(id) {
  const rec = records.find(r => r.id === id);
  const back = document.createElement('div');
  back.className = 'backdrop';
  back.innerHTML = '<div role="dialog" aria-modal="true" aria-labelledby="dlg-t"><h2 id="dlg-t">Eliminare ' + esc(rec.titolo) + '?</h2>' +
    '<button id="no">Annulla</button> <button id="yes">\ue872 Sì, elimina</button></div>';
  document.body.append(back);
  back.querySelector('#no').onclick = () => back.remove();
  back.querySelector('#yes').onclick = async () => { back.remove(); await api('DELETE', '/api/records/' + id); route(); };
}

function renderPanel(rec) {
  const p = document.createElement('aside');
  p.className = 'panel';
  p.innerHTML = '<h2>' + esc(rec.titolo) + '</h2><p><label>Stato <input id="stato" value="' + esc(rec.stato) + '"></label></p>' +
    '<button id="save">\ue161 Salva</button> <button id="close">\ue5cd Chiudi</button><p id="saved" role="status"></p>';
  document.body.append(p);
  p.querySelector('#close').onclick = () => { p.remove(); location.hash = '#/records'; };
  p.querySelector('#save').onclick = async () => {
    await api('PATCH', '/api/records/' + rec.id, {stato: p.querySelector('#stato').value});
    p.querySelector('#saved').textContent = 'Salvato';
  };
}

function route() {
  for (const el of document.querySelectorAll('aside.panel, .backdrop')) el.remove();
  if (!token()) { renderLogin(); return; }
  const m = location.hash.match(/^#\/records(?:\/(\d+))?$/);
  if (!m) { location.hash = '#/records'; return; }
  renderList(m[1] ? +m[1] : null).catch(() => {});
}
window.addEventListener('hashchange', route);
route();
</script></body></html>`
