// k8s_validate.js - validate Kubernetes objects against the schema of
// their kind, for tests/integration/kubernetes.test.  Reads one JSON object a line on
// stdin (`yq -c . rendered.yaml`), prints "valid KIND NAME" or
// "invalid KIND NAME: why" for each, and exits 1 if any is invalid or of
// a kind it has no schema for.
//
// The schemas are npm's kubernetes-models (the core kinds, from the
// OpenAPI schema of the Kubernetes release it names) and
// @kubernetes-models/prometheus-operator (the CRDs' openAPIV3Schema of
// the prometheus-operator release it names), each compiled into a
// validator; the test installs pinned versions into its cache and
// passes their node_modules as NODE_PATH.
'use strict';
const readline = require('readline');

// The module of a kind: core (v1) and the API groups from
// kubernetes-models, monitoring.coreos.com from its own package.
function modelOf(apiVersion, kind) {
	const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
	if (group === 'monitoring.coreos.com')
		return require(`@kubernetes-models/prometheus-operator/${group}/${version}/${kind}`)[kind];
	return require(`kubernetes-models/${group ? group + '/' : ''}${version}/${kind}`)[kind];
}

let bad = 0;
const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
	if (!line.trim() || line.trim() === 'null')
		return;
	const obj = JSON.parse(line);
	const what = `${obj.kind} ${obj.metadata && obj.metadata.name}`;
	let Model;
	try {
		Model = modelOf(String(obj.apiVersion), String(obj.kind));
	} catch (e) {
		Model = undefined;
	}
	if (typeof Model !== 'function') {
		console.log(`invalid ${what}: no schema for ${obj.apiVersion} ${obj.kind}`);
		bad++;
		return;
	}
	try {
		new Model(obj).validate();
		console.log(`valid ${what}`);
	} catch (e) {
		console.log(`invalid ${what}: ${String(e.message).replace(/\s+/g, ' ')}`);
		bad++;
	}
});
lines.on('close', () => process.exit(bad ? 1 : 0));
