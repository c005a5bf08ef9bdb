// The version of the HTTP API, apart from the package's version: semver over the API contract
// (patch: fixes; minor: new endpoints, fields or parameters; major: a change of meaning). Served at
// GET /version and in the X-Api-Version header of every response; CHANGELOG.md says what each one holds.
export const API_VERSION = '1.0.0';
