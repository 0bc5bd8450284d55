package agents

import (
	"bytes"
	"encoding/json"
	"errors"
)

// orderedObject is a JSON object whose key order and values are kept
// byte for byte.
type orderedObject []struct {
	key string
	val json.RawMessage
}

func parseObject(b []byte) (orderedObject, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var o orderedObject
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := kt.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(key, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("text after the JSON object")
	}
	return o, nil
}

func (o orderedObject) get(key string) (json.RawMessage, bool) {
	for _, kv := range o {
		if kv.key == key {
			return kv.val, true
		}
	}
	return nil, false
}

func (o *orderedObject) set(key string, v json.RawMessage) {
	for i := range *o {
		if (*o)[i].key == key {
			(*o)[i].val = v
			return
		}
	}
	*o = append(*o, struct {
		key string
		val json.RawMessage
	}{key, v})
}

func (o *orderedObject) del(key string) {
	for i := range *o {
		if (*o)[i].key == key {
			*o = append((*o)[:i], (*o)[i+1:]...)
			return
		}
	}
}

func (o orderedObject) bytes() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(kv.val)
	}
	b.WriteByte('}')
	return b.Bytes()
}
