// The API description page (/api/swagger): lists every operation of /swagger.v1.json.
// A static file, not inline script: pages send a Content-Security-Policy with
// script-src 'self'.
var specUrl = document.body.getAttribute("data-spec-url");
fetch(specUrl).then(r => r.json()).then(spec => {
  const esc = s => String(s).replace(/[&<>"]/g, c => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));
  document.getElementById('meta').innerHTML = 'Base path <code>' + esc(spec.basePath) +
    '</code> &middot; server ' + esc(spec.info['x-server-version']) +
    ' &middot; <a href="' + esc(specUrl) + '">swagger.v1.json</a>';
  const byTag = {};
  for (const [path, ops] of Object.entries(spec.paths))
    for (const [method, op] of Object.entries(ops))
      (byTag[op.tags[0]] = byTag[op.tags[0]] || []).push([method.toUpperCase(), path, op]);
  let html = '';
  for (const tag of Object.keys(byTag).sort()) {
    html += '<h2>' + esc(tag) + '</h2>';
    for (const [method, path, op] of byTag[tag]) {
      const params = (op.parameters || []).map(p => esc(p.name) + ' <small>(' + esc(p.in) +
        (p.schema ? ', ' + esc(p.schema.$ref.split('/').pop()) : ', ' + esc(p.type)) + ')</small>').join(', ');
      html += '<div class="op"><span class="m ' + method + '">' + method + '</span><code>' +
        esc(path) + '</code> &mdash; ' + esc(op.summary) + ' <small>' + esc(op.operationId) +
        '</small><details><summary>details</summary>parameters: ' + (params || 'none') +
        '<br>responses: ' + Object.keys(op.responses).join(', ') + '</details></div>';
    }
  }
  document.getElementById('ops').innerHTML = html;
});
