package jsonx

import "testing"

func TestMarshalKeepsShellText(t *testing.T) {
	b, err := Marshal(map[string]string{"command": "make && ./run <in >out"})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"command":"make && ./run <in >out"}` {
		t.Errorf("got %s", b)
	}
	if _, err := Marshal(func() {}); err == nil {
		t.Error("a func marshalled")
	}
}
