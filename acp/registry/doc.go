// Package registry installs agents listed in the ACP Registry
// (https://agentclientprotocol.com, the index Zed, JetBrains and others
// read: registry/v1/latest/registry.json).
//
// The index names agents (id, name, version, description, license, icon,
// repository) and how each is distributed: an npm package run with npx, a
// PyPI package run with uvx, or per-platform archives ("binary", keyed
// "linux-x86_64", "darwin-aarch64", …) holding an executable. The package
// provides:
//
//   - Parse: the index, tolerant of fields it does not know; an entry that
//     cannot be used (a bad id or version, a package spec that is not a
//     pinned name, an archive path that escapes its folder) is skipped with
//     its reason, never a panic (fuzzed);
//   - Source: the index fetched on request only (Refresh) and kept with its
//     date and the agents' icons in a cache folder, read back offline
//     (Cached) — mnote opens no connection of its own otherwise;
//   - Installer: one agent installed into a folder of its own,
//     ROOT/<id>/<version>: npm packages with `npm install --prefix`,
//     pinned to the listed version; archives (zip, tar.gz, tar.bz2,
//     tar.xz, or a bare executable) downloaded, checked against a sha256
//     when the index gives one, and unpacked without letting any entry
//     escape the folder (no "..", absolute paths, links out, devices or
//     FIFOs, and limits against archive bombs); uvx agents where uv is
//     installed. An install is built in a temporary folder beside the
//     target and renamed into place, so a failure leaves nothing behind.
//
// The result of an install (Installed) is the command that starts the
// agent; the caller keeps it as a runtime (acp/runtimes config entries
// with a "registry" source).
package registry
