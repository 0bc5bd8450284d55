// Package jsonx is kb's one JSON encoder setting: what kb writes as JSON
// (trace records, hook answers, state files, ledgers) keeps <, > and &
// as they are, because people and agents read those files and a shell
// command "a && b" must not come back as "a \u0026\u0026 b".
package jsonx

import (
	"bytes"
	"encoding/json"
)

// Marshal is json.Marshal without HTML escaping.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
