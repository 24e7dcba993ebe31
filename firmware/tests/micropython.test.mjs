// Runs the firmware tests (firmware/tests/cases.py) under the real MicroPython WebAssembly
// port, npm package @micropython/micropython-webassembly-pyscript, with Node's test runner:
//
//   MICROPYTHON_MJS=/path/to/node_modules/@micropython/micropython-webassembly-pyscript/micropython.mjs \
//     node --test firmware/tests/
//
// tests/test_firmware_mpy.py installs the package into a cache directory and runs this.
// The firmware package, main.py and the stub `machine` and `rp2` modules are copied into the port's
// in-memory filesystem under /lib, which is on MicroPython's sys.path.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const firmware = join(here, "..");

const mjs = process.env.MICROPYTHON_MJS;
if (!mjs) {
  throw new Error("set MICROPYTHON_MJS to the micropython.mjs of @micropython/micropython-webassembly-pyscript");
}
const { loadMicroPython } = await import(pathToFileURL(mjs).href);

let output = [];

async function boot() {
  const mp = await loadMicroPython({
    heapsize: 16 * 1024 * 1024,
    stdout: (line) => output.push(line),
    stderr: (line) => output.push(line),
  });
  mp.FS.mkdir("/lib");
  mp.FS.mkdir("/lib/dominotray");
  const copy = (from, to) => mp.FS.writeFile(to, readFileSync(from));
  for (const name of readdirSync(join(firmware, "dominotray"))) {
    if (name.endsWith(".py")) copy(join(firmware, "dominotray", name), `/lib/dominotray/${name}`);
  }
  copy(join(firmware, "main.py"), "/lib/main.py");
  copy(join(firmware, "boot.py"), "/lib/boot.py");
  copy(join(here, "cases.py"), "/lib/cases.py");
  for (const name of readdirSync(join(here, "stub"))) {
    if (name.endsWith(".py")) copy(join(here, "stub", name), `/lib/${name}`);
  }
  return mp;
}

// Discover the cases once, in a throwaway interpreter.
const probe = await boot();
probe.runPython(
  "import sys, cases\n" +
  "_impl = sys.implementation.name\n" +
  "_names = ','.join(sorted(n for n in dir(cases) if n.startswith('test_')))\n",
);
assert.equal(probe.globals.get("_impl"), "micropython");
const names = probe.globals.get("_names").split(",");

describe("firmware under MicroPython (WebAssembly port)", () => {
  let mp;
  before(async () => {
    mp = await boot();
    mp.runPython("import cases");
  });
  after(() => {
    output = [];
  });

  test("the case list is not empty", () => {
    assert.ok(names.length >= 20, `only ${names.length} cases found`);
  });

  for (const name of names) {
    test(name, () => {
      output = [];
      try {
        mp.runPython(`cases.${name}()`);
      } catch (error) {
        const printed = output.length ? `\n${output.join("\n")}` : "";
        assert.fail(`${error.message}${printed}`);
      }
    });
  }
});
