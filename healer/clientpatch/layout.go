package clientpatch

// A feature is one thing the patch gives the user, made of blocks that go
// in together or not at all. On a build the patch knows every feature
// fits; on another one (apply --force) each goes in where its anchors are
// found exactly once, provided the core fix is among them.
type feature struct {
	name   string
	blocks []part
	// needs are names of the client's own code the blocks use: each must
	// be a word of the file, or the block would throw a ReferenceError.
	needs []string
	// forbids are lines that must not be in the file (trimmed, spaces
	// ignored, as a prefix): what the block would replace or clash with.
	forbids []string
	// after is a feature whose blocks these use ("" none).
	after string
}

// Feature names, as status reports them.
const (
	FeatureCore    = "core"
	FeatureTrigger = "trigger"
	FeatureRetry   = "retry"
	FeatureDispose = "dispose"
)

// Anchor lines, as the known builds spell them (compared trimmed, with
// whitespace ignored).
const (
	anchorStart    = "function startConnection("
	anchorOnclose  = "generation.onclose = () => {"
	anchorSettling = "let settling = connectGeneration(true);"
	anchorDispose  = "async dispose() {"
	anchorDisposed = "disposed = true;"
	anchorCallTool = "function callToolUncached(client, rawName, args, exec, opts) {"
)

// layout is the features of a patch version, core first. Versions before
// v3 put every block in or none (strict), and their helpers only before
// startConnection: they are rebuilt only to recognise and upgrade files
// they patched.
func layout(version string) (fs []feature, strict bool) {
	switch version {
	case versionV1, versionV2:
		fs = []feature{
			{name: FeatureCore, blocks: []part{
				{"module", beforeLine(anchorStart, hasPrefix)},
				{"onerror", beforeLine(anchorOnclose, equal)},
			}},
			{name: FeatureTrigger, blocks: []part{{"register", afterLine(anchorSettling)}}},
			{name: FeatureDispose, blocks: []part{{"dispose", afterDisposeFlag}}},
		}
		if version == versionV2 {
			fs = append(fs, feature{name: FeatureRetry, blocks: []part{{"retry", intoBody(anchorCallTool)}}})
		}
		return fs, true
	}
	return layoutV3(), false
}

// layoutV3 is the features of v3 and later (v4 changed what the blocks
// say, not where they go). The track block (the retry's link to the
// supervisor) sits right after onerror, inside the attempt where the
// generation is in scope.
func layoutV3() []feature {
	return []feature{
		{name: FeatureCore,
			blocks: []part{
				{"module", helpersPlace},
				{"onerror", beforeLine(anchorOnclose, equal)},
			},
			needs:   []string{"attemptSettled", "generationDown"},
			forbids: []string{"generation.onerror ="},
		},
		{name: FeatureTrigger,
			blocks: []part{{"register", afterLine(anchorSettling)}},
			needs:  []string{"config", "ctx", "client", "connectedAt", "reconnectTimer", "label", "generationDown"},
		},
		{name: FeatureRetry,
			blocks: []part{
				{"track", beforeLine(anchorOnclose, equal)},
				{"retry", intoBody(anchorCallTool)},
			},
			needs: []string{"settling", "disposed", "connectedAt", "client", "reconnectTimer", "failedAttempts",
				"connectGeneration", "attemptSettled", "isCurrent", "generationDown", "label", "ctx"},
		},
		{name: FeatureDispose,
			blocks: []part{{"dispose", afterDisposeFlag}},
			after:  FeatureTrigger,
		},
	}
}

// blockNames lists a version's blocks in layout order.
func blockNames(version string) []string {
	fs, _ := layout(version)
	var out []string
	for _, f := range fs {
		for _, b := range f.blocks {
			out = append(out, b.name)
		}
	}
	return out
}
