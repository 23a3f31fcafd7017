#!/usr/bin/env bash
# The HTML report's script (client/report/report.js), its lint config and
# the test's driver (tests/e2e/html_check.mjs) pass eslint with
# client/report/eslint.config.mjs (eslint from npm, installed into the build
# tree by scripts/deps' mct_install_browser; skips, 77, only when it cannot be
# installed: the npm registry is unreachable).
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/scripts/deps"

NPM=$MCT_BUILDDIR/tests/e2e/npm
mct_install_browser "$NPM" || skip "eslint could not be installed from npm (see above)"
# Next to eslint, where the config's import of "@eslint/js" resolves.
cp "$MCT_SRCDIR/client/report/eslint.config.mjs" "$NPM/eslint.config.mjs" || fail "cannot copy the config"
cd "$MCT_SRCDIR" || fail "no $MCT_SRCDIR"
"$NPM/node_modules/.bin/eslint" --max-warnings 0 -c "$NPM/eslint.config.mjs" \
    client/report/report.js client/report/eslint.config.mjs tests/e2e/html_check.mjs ||
    fail "eslint found problems (above)"
