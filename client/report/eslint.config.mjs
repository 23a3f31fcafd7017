// eslint.config.mjs — the lint of the report page's script and of its test
// driver (tests/e2e/html_lint.sh copies it next to the eslint it installs,
// where "@eslint/js" resolves). ESLint's recommended rules, plus a few
// that keep plain code plain.
import js from "@eslint/js";

const browser = { window: "readonly", document: "readonly", performance: "readonly", getComputedStyle: "readonly" };
const node = { process: "readonly", console: "readonly" };

export default [
    js.configs.recommended,
    {
        rules: {
            "eqeqeq": "error",
            "no-var": "error",
            "prefer-const": "error",
            "curly": "error",
            "no-implicit-globals": "error",
            "no-shadow": "error",
            "no-unused-vars": ["error", { caughtErrors: "none" }],
        },
    },
    {
        files: ["**/report.js"],
        languageOptions: { ecmaVersion: 2022, sourceType: "script", globals: browser },
    },
    {
        files: ["**/*.mjs"],
        languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...node, ...browser } },
    },
];
