// eslint for the studio page (service/api/static) and its unit tests (tests/js): the
// recommended rules, the browser's globals for the page, node's for the tests.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/", ".venv/", "site/", "service/api/static/docs/"] },
  js.configs.recommended,
  {
    files: ["service/api/static/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.browser },
    rules: { "no-unused-vars": ["error", { caughtErrors: "none" }] },
  },
  {
    files: ["tests/js/*.js", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.node },
  },
];
