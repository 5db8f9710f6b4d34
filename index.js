// n8n loads this package through the `n8n` section of package.json; this entry point only
// exists so that `require('n8n-nodes-website-export')` resolves.
module.exports = {};
