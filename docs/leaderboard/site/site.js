'use strict';
(function () {
  function sortValue(row, index, numeric) {
    var cell = row.cells[index];
    var raw = cell ? cell.getAttribute('data-value') : null;
    if (raw === null || raw === '') return null;
    return numeric ? Number(raw) : raw;
  }

  function sortBy(table, header, index) {
    var numeric = header.getAttribute('data-type') === 'number';
    var ascending = header.getAttribute('aria-sort') !== 'ascending';
    Array.prototype.forEach.call(header.parentNode.cells, function (other) { other.removeAttribute('aria-sort'); });
    header.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = sortValue(a, index, numeric);
      var y = sortValue(b, index, numeric);
      if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
      var order = x < y ? -1 : x > y ? 1 : 0;
      return ascending ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }

  document.querySelectorAll('table.sortable').forEach(function (table) {
    var headers = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(headers, function (header, index) {
      var button = header.querySelector('button');
      if (button) button.addEventListener('click', function () { sortBy(table, header, index); });
    });
  });

  // The filter matches a row's name and package at once; the tools' names and descriptions come
  // from search.js, loaded the first time the filter is used so the page itself stays small.
  var filter = document.getElementById('filter');
  var shown = document.getElementById('filter-count');
  var searchRequested = false;
  function applyFilter() {
    var needle = filter.value.trim().toLowerCase();
    var tools = window.mcpctxSearch || {};
    var rows = document.querySelectorAll('#leaderboard tbody tr');
    var visible = 0;
    rows.forEach(function (row) {
      var segment = row.getAttribute('data-segment') || '';
      var text = Object.prototype.hasOwnProperty.call(tools, segment) ? tools[segment] : '';
      var match = needle === '' || (row.getAttribute('data-name') || '').indexOf(needle) !== -1 || text.indexOf(needle) !== -1;
      row.hidden = !match;
      if (match) visible += 1;
    });
    if (shown) shown.textContent = needle === '' ? '' : visible + ' of ' + rows.length;
  }
  if (filter) {
    filter.addEventListener('input', function () {
      if (!searchRequested && filter.getAttribute('data-search')) {
        searchRequested = true;
        var script = document.createElement('script');
        script.src = filter.getAttribute('data-search');
        script.addEventListener('load', applyFilter);
        document.head.appendChild(script);
      }
      applyFilter();
    });
  }

  // Copy buttons: hidden without the script (the snippet is plain text to select), shown here.
  document.querySelectorAll('button.copy').forEach(function (button) {
    var source = document.getElementById(button.getAttribute('data-copy') || '');
    var status = button.parentNode.querySelector('output.copied');
    if (!source) return;
    button.hidden = false;
    button.addEventListener('click', function () {
      var value = source.textContent || '';
      var range = document.createRange();
      range.selectNodeContents(source);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      function said(words) { if (status) status.textContent = words; }
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(value).then(function () { said('Copied'); }, function () { said('Selected: press Ctrl+C'); });
      } else {
        said(document.execCommand && document.execCommand('copy') ? 'Copied' : 'Selected: press Ctrl+C');
      }
    });
  });

  // A link to one tool's definition opens it.
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id ? document.getElementById(id) : null;
    if (target && target.tagName === 'DETAILS') target.open = true;
  }
  window.addEventListener('hashchange', openTarget);
  openTarget();
})();
'use strict';
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
    if (check.state === 'match') return '\u2713';
    if (check.state === 'unchecked') return 'not checked: ' + check.reason;
    if (typeof check.recorded === 'number' && typeof check.recomputed === 'number') {
      var delta = check.recomputed - check.recorded;
      return '\u2717 recount is ' + (delta > 0 ? '+' : '') + delta.toLocaleString('en-US');
    }
    return '\u2717 differs';
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
    say('Fetching the record\u2026');
    fetchRecord(box.getAttribute('data-measurement'))
      .then(function (text) {
        say('Loading the tokenizer and recounting\u2026');
        return loadRecount().then(function (recount) { return recount(text); });
      })
      .then(render, function (error) {
        box.setAttribute('data-outcome', 'error');
        say(error.message, 'error');
      })
      .then(function () { button.disabled = false; });
  });
})();
