// Preloaded (node -r) into an npm MCP server that listens on every
// interface, so that a test server listens on loopback only: a listen
// on a port with no host is given 127.0.0.1.
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if ((typeof args[0] === "number" || typeof args[0] === "string") && typeof args[1] !== "string") {
    args.splice(1, 0, "127.0.0.1");
  }
  return listen.apply(this, args);
};
