// Stands in for a package the project's install leaves out (package.json "overrides"): a dependency
// of a dependency that only code this project never runs imports. Loading it is a mistake to report,
// not to work around: docs/development.md says which packages are left out and why.
throw new Error('This package is left out of the install (see "overrides" in package.json and docs/development.md).');
