/** How to create a deployment through the API, for the empty list (the origin is this console's). */
export function CreateSnippet() {
  const base = typeof location === "undefined" ? "http://127.0.0.1:8080" : location.origin;
  const text = `# an integration of this machine's git repositories (berth dev creates one)
INTEGRATION=$(curl -s -H "X-Api-Key: $BERTH_API_KEY" ${base}/v1/integrations/hosted_git/install | jq -r '.[0].id')

curl -s -X POST ${base}/v2/deployments \\
  -H "X-Api-Key: $BERTH_API_KEY" -H 'content-type: application/json' -d '{
  "name": "example", "source": "hosted_git",
  "source_config": {"integration_id": "'$INTEGRATION'", "repo_url": "file:///path/to/repo"},
  "source_revision_config": {"repo_ref": "main", "agent_config_path": "langgraph.json"},
  "secrets": []}'

# or a container image
curl -s -X POST ${base}/v2/deployments \\
  -H "X-Api-Key: $BERTH_API_KEY" -H 'content-type: application/json' -d '{
  "name": "my-agent", "source": "external_container", "source_config": {},
  "source_revision_config": {"image_uri": "registry.example.com/my-agent:1.0"},
  "secrets": []}'`;
  return <pre className="snippet">{text}</pre>;
}
