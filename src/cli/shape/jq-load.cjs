// jq-web's module.exports is a promise. Imported directly, the bundle's
// ES-module interop gives it Promise's prototype without being a promise, and
// awaiting the import then fails; required from here it stays a real promise.
'use strict';
module.exports = { runtime: () => require('jq-web') };
