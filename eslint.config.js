// eslint for the studio page (service/api/static), the API docs page's script and the
// studio's unit tests (tests/js): the recommended rules, the browser's globals for the pages,
// node's for the tests.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/", ".venv/", "site/"] },
  js.configs.recommended,
  {
    files: ["service/api/static/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.browser },
    rules: { "no-unused-vars": ["error", { caughtErrors: "none" }] },
  },
  {
    // the API docs page's one classic script, beside Swagger UI's bundle (service/api/docs.py)
    files: ["service/api/static/docs/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "script", globals: { ...globals.browser, SwaggerUIBundle: "readonly" } },
  },
  {
    files: ["tests/js/*.js", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.node },
  },
];
