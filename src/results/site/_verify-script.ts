// The verify button of a server page, appended to site.js (which every page loads from its head;
// the script returns at once on a page without the button). It is the one script of the site that
// fetches: the page's own copied measurement.json, same origin. The recount itself is
// verify/recount.js, loaded at the first press; this script only fetches, calls it and shows its
// report. Every value from the file goes in as text (textContent), never as markup.

export const VERIFY_BUTTON_JS = `'use strict';
(function () {
  var box = document.getElementById('browser-verify');
  var button = document.getElementById('verify-button');
  var status = document.getElementById('verify-status');
  var result = document.getElementById('verify-result');
  if (!box || !button || !status || !result) return;

  function say(message, kind) {
    status.textContent = message;
    status.className = kind ? 'verify-' + kind : '';
  }

  function fetchRecord(url) {
    if (location.protocol === 'file:') {
      return Promise.reject(new Error('This page was opened from a file (file://), and browsers do not let a page fetch files. ' +
        'Serve the site folder over HTTP (for example: python3 -m http.server, run in that folder) and open this page from http://localhost:8000/ to verify it here.'));
    }
    return fetch(url, { cache: 'no-store' }).then(function (response) {
      if (!response.ok) throw new Error('Could not fetch ' + url + ': HTTP ' + response.status + '.');
      return response.text();
    }, function (error) {
      throw new Error('Could not fetch ' + url + ' (' + error.message + '). The record is read from the site itself: serve the site folder over HTTP.');
    });
  }

  function loadRecount() {
    if (typeof window.mcpctxRecount === 'function') return Promise.resolve(window.mcpctxRecount);
    return new Promise(function (resolve, reject) {
      var script = document.createElement('script');
      script.src = box.getAttribute('data-recount');
      script.onload = function () {
        if (typeof window.mcpctxRecount === 'function') resolve(window.mcpctxRecount);
        else reject(new Error('The recount script loaded but did not start.'));
      };
      script.onerror = function () {
        reject(new Error('The recount script (' + script.getAttribute('src') + ') is missing from this site: it was built by an mcpctx run from sources without npm run build.'));
      };
      document.head.appendChild(script);
    });
  }

  function shown(value) {
    if (value === undefined) return 'absent';
    return typeof value === 'string' ? value : JSON.stringify(value);
  }

  function verdict(check) {
    if (check.state === 'match') return '\\u2713';
    if (check.state === 'unchecked') return 'not checked: ' + check.reason;
    if (typeof check.recorded === 'number' && typeof check.recomputed === 'number') {
      var delta = check.recomputed - check.recorded;
      return '\\u2717 recount is ' + (delta > 0 ? '+' : '') + delta.toLocaleString('en-US');
    }
    return '\\u2717 differs';
  }

  function cell(row, value, className) {
    var td = document.createElement('td');
    td.textContent = value;
    if (className) td.className = className;
    row.appendChild(td);
    return td;
  }

  function render(report) {
    var kind = report.outcome === 'verified' ? 'ok' : report.outcome === 'differs' || report.outcome === 'refused' ? 'differs' : 'note';
    var recorded = report.recordedTokenizer;
    var tokenizerNote = recorded && typeof recorded === 'object' && recorded.version !== report.tokenizer.version
      ? ' The record names ' + recorded.name + ' ' + recorded.version + '; this page counts with ' + report.tokenizer.name + ' ' + report.tokenizer.version + ' (' + report.tokenizer.encoding + ').'
      : '';
    say(report.note + '.' + tokenizerNote, kind);
    box.setAttribute('data-outcome', report.outcome);
    result.textContent = '';
    if (report.checks.length === 0) return;
    var table = document.createElement('table');
    table.id = 'verify-checks';
    var head = table.createTHead().insertRow();
    ['Figure', 'Tool', 'Recorded', 'Recounted here', 'Check'].forEach(function (label) {
      var th = document.createElement('th');
      th.scope = 'col';
      th.textContent = label;
      head.appendChild(th);
    });
    var body = table.createTBody();
    report.checks.forEach(function (check) {
      var row = body.insertRow();
      row.setAttribute('data-figure', check.figure);
      row.setAttribute('data-state', check.state);
      if (check.tool) row.setAttribute('data-tool', check.tool.name);
      row.className = 'verify-' + (check.state === 'match' ? 'ok' : check.state === 'differs' ? 'differs' : 'note');
      cell(row, check.figure);
      cell(row, check.tool ? check.tool.name : '', 'name');
      cell(row, shown(check.recorded), 'hash');
      cell(row, shown(check.recomputed), 'hash');
      cell(row, verdict(check), 'verdict');
    });
    result.appendChild(table);
  }

  button.addEventListener('click', function () {
    button.disabled = true;
    box.removeAttribute('data-outcome');
    result.textContent = '';
    say('Fetching the record\\u2026');
    fetchRecord(box.getAttribute('data-measurement'))
      .then(function (text) {
        say('Loading the tokenizer and recounting\\u2026');
        return loadRecount().then(function (recount) { return recount(text); });
      })
      .then(render, function (error) {
        box.setAttribute('data-outcome', 'error');
        say(error.message, 'error');
      })
      .then(function () { button.disabled = false; });
  });
})();
`;
