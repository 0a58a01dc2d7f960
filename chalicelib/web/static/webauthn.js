// Security keys (WebAuthn): the browser's side of registering a key on the security
// settings and of signing in with one.  A form marked data-webauthn="create" or "get"
// carries the ceremony's options (made by the server, JSON with base64url bytes) in
// data-webauthn-options; this asks the browser for the key's answer, puts it in the
// form's "credential" field as JSON (base64url bytes again, as py_webauthn reads it)
// and sends the form.  The server checks everything; nothing here is trusted.
(function () {
  function bytes(text) {
    var b64 = text.replace(/-/g, "+").replace(/_/g, "/");
    while (b64.length % 4) b64 += "=";
    var raw = atob(b64), out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
    return out.buffer;
  }

  function text(buffer) {
    if (!buffer) return null;
    var view = new Uint8Array(buffer), raw = "";
    for (var i = 0; i < view.length; i++) raw += String.fromCharCode(view[i]);
    return btoa(raw).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function descriptors(list) {
    return (list || []).map(function (item) {
      return {type: item.type, id: bytes(item.id), transports: item.transports};
    });
  }

  function creationOptions(options) {
    options.challenge = bytes(options.challenge);
    options.user.id = bytes(options.user.id);
    options.excludeCredentials = descriptors(options.excludeCredentials);
    return {publicKey: options};
  }

  function requestOptions(options) {
    options.challenge = bytes(options.challenge);
    options.allowCredentials = descriptors(options.allowCredentials);
    return {publicKey: options};
  }

  function answer(credential) {
    var response = credential.response, shown = {
      clientDataJSON: text(response.clientDataJSON)
    };
    if (response.attestationObject) {
      shown.attestationObject = text(response.attestationObject);
      if (response.getTransports) shown.transports = response.getTransports();
    } else {
      shown.authenticatorData = text(response.authenticatorData);
      shown.signature = text(response.signature);
      shown.userHandle = text(response.userHandle);
    }
    return JSON.stringify({
      id: credential.id, rawId: text(credential.rawId), type: credential.type,
      response: shown, clientExtensionResults: credential.getClientExtensionResults(),
      authenticatorAttachment: credential.authenticatorAttachment || undefined
    });
  }

  function start(form) {
    var kind = form.getAttribute("data-webauthn");
    var status = form.querySelector("[data-webauthn-status]");
    var button = form.querySelector("[data-webauthn-start]");
    var say = function (message) { if (status) status.textContent = message; };
    if (!window.PublicKeyCredential || !navigator.credentials) {
      say("This browser cannot use security keys.");
      return;
    }
    var options = JSON.parse(form.getAttribute("data-webauthn-options"));
    var asked = kind === "create"
      ? navigator.credentials.create(creationOptions(options))
      : navigator.credentials.get(requestOptions(options));
    if (button) button.disabled = true;
    say("Waiting for your security key…");
    asked.then(function (credential) {
      form.querySelector("input[name=credential]").value = answer(credential);
      say("Checking…");
      form.submit();
    }, function (error) {
      // Nothing was sent: the challenge still serves (for a few minutes) another try.
      if (button) button.disabled = false;
      say("The security key did not answer (" + (error && error.name || "error") +
          "). Press the button to try again.");
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("form[data-webauthn]").forEach(function (form) {
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        start(form);
      });
      start(form);
    });
  });
})();
