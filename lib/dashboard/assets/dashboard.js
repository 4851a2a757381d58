// rescue dashboard: live updates for the server-rendered pages. The page's
// live region (#live-region) is fetched again when the server says the
// queue changed (Server-Sent Events on data-live), or every data-poll ms when
// those do not get through; nothing is fetched while the tab is hidden.
// Queue events on the events page are added as rows as they arrive.
(function () {
  'use strict';
  var body = document.body;
  var region = document.getElementById('live-region');
  var status = document.getElementById('live-status');
  var liveUrl = body.getAttribute('data-live') || '';
  var pollMs = Number(body.getAttribute('data-poll')) || 5000;
  var refreshEvery = Number(body.getAttribute('data-refresh-every')) || 0;
  var refreshOnChange = body.getAttribute('data-refresh-on-change') !== '0';
  var source = null;
  var pollTimer = null;
  var tickTimer = null;
  var refreshTimer = null;
  var failures = 0;
  var refreshing = false;
  var pending = false;
  var lastRefresh = 0;
  var refreshes = 0;

  function setStatus(state, text) {
    if (!status) return;
    status.setAttribute('data-state', state);
    status.textContent = text;
  }

  // At most one refresh in flight and one every 300 ms: a burst of changes is one fetch.
  function scheduleRefresh() {
    if (!region || document.hidden) return;
    if (refreshing) {
      pending = true;
      return;
    }
    if (refreshTimer !== null) return;
    var wait = Math.max(0, lastRefresh + 300 - Date.now());
    refreshTimer = setTimeout(function () {
      refreshTimer = null;
      refresh();
    }, wait);
  }

  function refresh() {
    refreshing = true;
    fetch(location.href, {
      headers: { 'X-Rescue-Fragment': '1' },
      credentials: 'same-origin',
      cache: 'no-store',
    })
      .then(function (response) {
        return response.text();
      })
      .then(function (text) {
        // the tasks ticked stay ticked while they are listed
        var ticked = selectedIds();
        region.innerHTML = text;
        region.querySelectorAll('input[data-select]').forEach(function (box) {
          if (ticked.indexOf(box.value) >= 0) box.checked = true;
        });
        countSelected();
        refreshes += 1;
        body.setAttribute('data-refreshes', String(refreshes));
      })
      .catch(function () {
        setStatus('error', 'offline');
      })
      .then(function () {
        refreshing = false;
        lastRefresh = Date.now();
        if (pending) {
          pending = false;
          scheduleRefresh();
        }
      });
  }

  // A row for each event as it arrives, built with textContent: never markup from data.
  function addEvent(data) {
    var list = document.getElementById('events-body');
    if (!list) return;
    var event = JSON.parse(data);
    var only = list.getAttribute('data-kind-filter');
    if (only && only !== event.kind) return;
    if (list.querySelector('[data-event="' + CSS.escape(event.id) + '"]')) return;
    var row = document.createElement('tr');
    row.setAttribute('data-event', event.id);
    row.setAttribute('data-kind', event.kind);
    [
      event.at,
      event.kind,
      event.task,
      event.labels || '',
      event.worker,
      event.reason || '',
    ].forEach(function (text, index) {
      var cell = document.createElement('td');
      if (index === 2 && text) {
        var link = document.createElement('a');
        link.href = list.getAttribute('data-task-base') + '/' + encodeURIComponent(text);
        var code = document.createElement('code');
        code.textContent = text;
        link.appendChild(code);
        cell.appendChild(link);
      } else if (index === 1) {
        var badge = document.createElement('span');
        badge.className = 'event ' + text;
        badge.textContent = text;
        cell.appendChild(badge);
      } else {
        if (index === 3) cell.className = 'meta';
        cell.textContent = text;
      }
      row.appendChild(cell);
    });
    list.insertBefore(row, list.firstChild);
    var most = Number(list.getAttribute('data-most')) || 500;
    while (list.children.length > most) list.removeChild(list.lastChild);
    var empty = document.getElementById('events-empty');
    if (empty) empty.remove();
  }

  function addGap(data) {
    var list = document.getElementById('events-body');
    if (!list) return;
    var row = document.createElement('tr');
    row.className = 'gap';
    var cell = document.createElement('td');
    cell.colSpan = 6;
    cell.textContent = JSON.parse(data).skipped + ' more events came at once and are not shown';
    row.appendChild(cell);
    list.insertBefore(row, list.firstChild);
  }

  function connect() {
    source = new EventSource(liveUrl);
    source.addEventListener('open', function () {
      if (failures > 0) scheduleRefresh();
      failures = 0;
      setStatus('live', 'live');
    });
    source.addEventListener('change', function () {
      if (refreshOnChange) scheduleRefresh();
    });
    source.addEventListener('queue-event', function (message) {
      addEvent(message.data);
    });
    source.addEventListener('gap', function (message) {
      addGap(message.data);
    });
    source.addEventListener('failure', function () {
      setStatus('error', 'queue unreadable');
    });
    source.addEventListener('error', function () {
      failures += 1;
      if (failures >= 3) {
        // the stream does not get through (a proxy that buffers, a server that refuses it)
        stopStream();
        startPolling();
      } else {
        setStatus('connecting', 'reconnecting');
      }
    });
  }

  function stopStream() {
    if (source !== null) source.close();
    source = null;
  }

  function startPolling() {
    setStatus('polling', 'polling');
    if (pollTimer === null) pollTimer = setInterval(scheduleRefresh, pollMs);
  }

  function start() {
    if (liveUrl === '') return;
    if (typeof window.EventSource === 'function' && failures < 3) connect();
    else startPolling();
    if (refreshEvery > 0 && tickTimer === null)
      tickTimer = setInterval(scheduleRefresh, refreshEvery);
  }

  function pause() {
    stopStream();
    clearInterval(pollTimer);
    clearInterval(tickTimer);
    pollTimer = null;
    tickTimer = null;
    if (liveUrl !== '') setStatus('paused', 'paused');
  }

  document.addEventListener('visibilitychange', function () {
    if (document.hidden) {
      pause();
    } else {
      failures = 0;
      start();
      scheduleRefresh();
    }
  });

  // Actions that cannot be undone ask first (the button's question, else the form's).
  document.addEventListener('submit', function (event) {
    var submitter = event.submitter;
    var message =
      (submitter && submitter.getAttribute('data-confirm')) ||
      event.target.getAttribute('data-confirm');
    if (message && !window.confirm(message)) event.preventDefault();
  });

  // The tasks ticked in a list: their ids go with the selection form.
  function selectedIds() {
    var ids = [];
    document.querySelectorAll('input[data-select]:checked').forEach(function (box) {
      ids.push(box.value);
    });
    return ids;
  }

  function countSelected() {
    var count = document.querySelector('[data-selected-count]');
    if (count) count.textContent = String(selectedIds().length);
  }

  document.addEventListener('change', function (event) {
    var target = event.target;
    if (target.hasAttribute && target.hasAttribute('data-select-all')) {
      document.querySelectorAll('input[data-select]').forEach(function (box) {
        box.checked = target.checked;
      });
    }
    countSelected();
  });

  if (!document.hidden) start();
  else pause();
})();
