// The console's one script: its passkey ceremonies. Every element with
// data-ceremony names one (login, register, sign, approve or add), its
// endpoints (data-options, data-submit, and data-step-up for add) and the
// CSRF token (data-csrf); its button starts it. The server gives the
// options, the browser asks the person's authenticator, the answer goes
// back, and the server says where to go next: everything is decided there.
// No framework, no other file.
"use strict";

document.addEventListener("DOMContentLoaded", function () {
  var supported = window.PublicKeyCredential &&
    typeof PublicKeyCredential.parseCreationOptionsFromJSON === "function" &&
    typeof PublicKeyCredential.parseRequestOptionsFromJSON === "function";
  document.querySelectorAll("[data-ceremony]").forEach(function (el) {
    var button = el.querySelector("button[data-start]");
    var status = el.querySelector("[data-status]");
    if (!button) {
      return;
    }
    if (!supported) {
      say(status, "This browser cannot use passkeys. Use a recent version of Chrome, Edge, Firefox or Safari.", true);
      return;
    }
    button.hidden = false;
    if (el.getAttribute("data-ceremony") === "add") {
      addPasskey(el, button, status);
      return;
    }
    button.addEventListener("click", function () {
      press(button, status, function () { return run(el); });
    });
  });
});

// press runs a ceremony's last step from its button: the button disabled
// meanwhile, the person told, and the page the step resolves to opened.
// It resolves to whether the step failed (the button is enabled again).
function press(button, status, step) {
  button.disabled = true;
  say(status, "Waiting for your passkey…", false);
  return step().then(function (next) {
    // Only a path on this site: never somewhere the answer names.
    if (typeof next !== "string" || next.charAt(0) !== "/" || next.charAt(1) === "/") {
      throw new Error("The console answered without a page to go to.");
    }
    say(status, "Done.", false);
    window.location.assign(next);
    return false;
  }).catch(function (err) {
    button.disabled = false;
    say(status, explain(err), true);
    return true;
  });
}

// addPasskey adds a passkey in two presses. The first confirms it is the
// operator (the step-up: a fresh assertion by one of their passkeys, user
// verified), which the server takes once and answers with the options of
// the one registration it allows; the second creates the new passkey
// with them. Two presses, not one: a browser may ask for a passkey only
// just after the person pressed something (Safari holds to it), and the
// first ask uses that up. A failure starts over from the confirmation,
// whose registration may have ended (it lives minutes).
function addPasskey(el, button, status) {
  var create = el.querySelector("button[data-create]");
  var csrf = el.getAttribute("data-csrf") || "";
  var creation = null;
  button.addEventListener("click", function () {
    button.disabled = true;
    say(status, "Waiting for a passkey you have…", false);
    post(el.getAttribute("data-step-up"), csrf, {}).then(function (options) {
      return navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options) });
    }).then(function (credential) {
      if (!credential) {
        throw new Error("No passkey was used.");
      }
      return post(el.getAttribute("data-options"), csrf, { response: credential.toJSON() });
    }).then(function (options) {
      creation = options;
      button.hidden = true;
      create.hidden = false;
      create.disabled = false;
      create.focus();
      say(status, "Confirmed. Now create the new passkey, on this device or on another.", false);
    }).catch(function (err) {
      button.disabled = false;
      say(status, explain(err), true);
    });
  });
  create.addEventListener("click", function () {
    press(create, status, function () {
      return navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(creation) }).then(function (credential) {
        if (!credential) {
          throw new Error("No passkey was created.");
        }
        var name = el.querySelector("input[name=name]");
        return post(el.getAttribute("data-submit"), csrf, { name: name ? name.value : "", response: credential.toJSON() });
      }).then(function (data) {
        return data.next;
      });
    }).then(function (failed) {
      if (failed) {
        create.hidden = true;
        button.hidden = false;
        button.disabled = false;
        button.focus();
      }
    });
  });
}

// run performs one ceremony and resolves to the page to go to.
function run(el) {
  var kind = el.getAttribute("data-ceremony");
  var csrf = el.getAttribute("data-csrf") || "";
  var first = {};
  if (kind === "sign") {
    first.decision = fields(el.querySelector("form[data-fields]"));
  }
  return post(el.getAttribute("data-options"), csrf, first).then(function (options) {
    if (kind === "register") {
      return navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) });
    }
    return navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options) });
  }).then(function (credential) {
    if (!credential) {
      throw new Error("No passkey was used.");
    }
    var answer = { response: credential.toJSON() };
    if (kind === "sign") {
      answer.decision = first.decision;
    }
    if (kind === "register") {
      var name = el.querySelector("input[name=name]");
      answer.name = name ? name.value : "";
    }
    return post(el.getAttribute("data-submit"), csrf, answer);
  }).then(function (data) {
    return data.next;
  });
}

// post sends a JSON body and resolves to the JSON answer, or rejects with
// the console's own sentence.
function post(url, csrf, body) {
  var headers = { "Content-Type": "application/json" };
  if (csrf) {
    headers["X-CSRF-Token"] = csrf;
  }
  return fetch(url, { method: "POST", headers: headers, body: JSON.stringify(body), credentials: "same-origin" })
    .then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (data) {
        if (!res.ok) {
          throw new Error(data.error || "The console answered with status " + res.status + ".");
        }
        return data;
      });
    });
}

// fields are a form's fields as an object of strings.
function fields(form) {
  var out = {};
  if (form) {
    new FormData(form).forEach(function (value, key) { out[key] = String(value); });
  }
  return out;
}

// explain turns a failure into a sentence for the person.
function explain(err) {
  if (err && err.name === "NotAllowedError") {
    return "The passkey prompt was closed or timed out. Nothing was sent: try again.";
  }
  if (err && err.name === "InvalidStateError") {
    return "This device holds a passkey for you already.";
  }
  return (err && err.message) || "Something went wrong.";
}

function say(status, text, problem) {
  if (!status) {
    return;
  }
  status.textContent = text;
  status.classList.toggle("problem", problem);
  status.hidden = false;
}
