"""The page's only script (inline; no network): it evaluates the symbolic values the
pictures carry (``model.sym_json``) for the reader's inputs and moves what depends on them.

Elements it updates: ``[data-e]`` text, ``[data-g]`` rectangles (x, y, width, height in
elements), ``svg[data-vb]`` view boxes, ``input[data-lo][data-hi]`` slider bounds,
``[data-mask]`` cards (masked when a condition fails), ``#checks`` (run-time checks of
the sizes that fail). Integer arithmetic is C's (division truncates)."""

SCRIPT = r"""
(function () {
  "use strict";
  var model = JSON.parse(document.getElementById("model").textContent);
  var parsed = new WeakMap();
  function data(el, key) {
    var cache = parsed.get(el);
    if (!cache) { cache = {}; parsed.set(el, cache); }
    if (!(key in cache)) cache[key] = JSON.parse(el.dataset[key]);
    return cache[key];
  }
  function cdiv(a, b) { return b === 0 ? NaN : Math.trunc(a / b); }
  var OPS = {
    "/": cdiv, "%": function (a, b) { return b === 0 ? NaN : a - cdiv(a, b) * b; },
    "<<": function (a, b) { return a * Math.pow(2, b); }, ">>": function (a, b) { return Math.floor(a / Math.pow(2, b)); },
    "&": function (a, b) { return a & b; }, "|": function (a, b) { return a | b; }, "^": function (a, b) { return a ^ b; },
    "==": function (a, b) { return +(a === b); }, "!=": function (a, b) { return +(a !== b); },
    "<": function (a, b) { return +(a < b); }, ">": function (a, b) { return +(a > b); },
    "<=": function (a, b) { return +(a <= b); }, ">=": function (a, b) { return +(a >= b); },
    "&&": function (a, b) { return +(!!a && !!b); }, "||": function (a, b) { return +(!!a || !!b); },
    "!": function (a) { return +!a; }, "~": function (a) { return ~a; },
    "?:": function (c, a, b) { return c ? a : b; }, "min": Math.min, "max": Math.max
  };
  function evalSym(sym, env) {
    var total = 0;
    for (var i = 0; i < sym.length; i++) {
      var term = sym[i][0], atoms = sym[i][1];
      for (var j = 0; j < atoms.length; j++) {
        var a = atoms[j];
        if (typeof a === "string") {
          term *= (a in env) ? env[a] : NaN;
        } else {
          var args = [];
          for (var k = 1; k < a.length; k++) args.push(evalSym(a[k], env));
          term *= OPS[a[0]] ? OPS[a[0]].apply(null, args) : NaN;
        }
      }
      total += term;
    }
    return total;
  }
  function currentEnv() {
    var env = {};
    document.querySelectorAll("input[data-var]").forEach(function (input) {
      env[input.dataset.var] = parseInt(input.value, 10);
    });
    model.aliases.forEach(function (pair) { env[pair[0]] = env[pair[1]]; });
    model.derived.forEach(function (pair) {
      var v = evalSym(pair[1], env);
      if (isFinite(v)) env[pair[0]] = v;
    });
    return env;
  }
  function refresh() {
    var env = currentEnv();
    document.querySelectorAll("input[type=range][data-hi]").forEach(function (input) {
      var lo = evalSym(data(input, "lo"), env), hi = evalSym(data(input, "hi"), env);
      if (isFinite(lo) && isFinite(hi)) {
        input.min = lo;
        input.max = Math.max(lo, hi - 1);
        if (parseInt(input.value, 10) > hi - 1) input.value = Math.max(lo, hi - 1);
      }
      input.parentNode.querySelector("output").textContent = input.value;
    });
    env = currentEnv();
    document.querySelectorAll("[data-e]").forEach(function (el) {
      var v = evalSym(data(el, "e"), env);
      el.textContent = isFinite(v) ? String(v) : "?";
    });
    document.querySelectorAll("[data-g]").forEach(function (el) {
      var g = data(el, "g").map(function (s) { return evalSym(s, env); });
      if (g.every(isFinite) && g[2] > 0 && g[3] > 0) {
        el.setAttribute("x", g[0]); el.setAttribute("y", g[1]);
        el.setAttribute("width", g[2]); el.setAttribute("height", g[3]);
        el.removeAttribute("visibility");
      } else {
        el.setAttribute("visibility", "hidden");
      }
    });
    document.querySelectorAll("svg[data-vb]").forEach(function (el) {
      var vb = data(el, "vb").map(function (s) { return evalSym(s, env); });
      if (vb.every(function (v) { return isFinite(v) && v > 0; })) el.setAttribute("viewBox", "0 0 " + vb[0] + " " + vb[1]);
    });
    document.querySelectorAll("[data-mask]").forEach(function (el) {
      var off = data(el, "mask").filter(function (m) { return !evalSym(m[0], env); });
      el.classList.toggle("masked", off.length > 0);
      var why = el.querySelector(".why");
      if (why) why.textContent = off.map(function (m) { return m[1]; }).join(" and ");
    });
    var checks = document.getElementById("checks");
    if (checks) {
      checks.textContent = "";
      model.checks.forEach(function (c) {
        if (!evalSym(c[0], env)) {
          var li = document.createElement("li");
          li.textContent = "fails at run time: " + c[1];
          checks.appendChild(li);
        }
      });
    }
  }
  document.addEventListener("input", refresh);
  refresh();
})();
"""
