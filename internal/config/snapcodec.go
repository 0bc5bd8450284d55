package config

import (
	"cmp"
	"errors"
	"fmt"
	"github.com/kbmem/kb/internal/binrec"
	"reflect"
	"slices"
)

// The snapshot's Config in a binary form: a hook reads it once a call, and
// as JSON, building encoding/json's decoders for Config's dozen types was
// most of reading kb.yaml. The fields of each struct in their order
// (exported ones; Config has no other), recursively: a bool one byte, an
// integer a zigzag varint, an unsigned one a varint, a float 8 bytes, a
// string a varint length and its bytes, a slice a varint count and its
// items, a map its count and its pairs in key order (a slice's or a map's
// count plus one: 0 is nil, so that an empty one stays empty), a pointer a
// flag and what it points to. The snapshot's key (snapshotKey) changes with the
// type's shape, so a snapshot is only read by a program with the same
// fields in the same order.

var errSnapshotKind = errors.New("config snapshot: a field of a kind the codec does not write")

func encodeConfig(c *Config) ([]byte, error) {
	var e binrec.Encoder
	if err := encodeValue(&e, reflect.ValueOf(c).Elem()); err != nil {
		return nil, err
	}
	return e.B, nil
}

func decodeConfig(b []byte, c *Config) error {
	d := snapDecoder{Decoder: binrec.Decoder{B: b}}
	var x Config
	d.value(reflect.ValueOf(&x).Elem())
	if d.err == nil && d.Bad {
		d.err = errors.New("config snapshot: damaged")
	}
	if d.err != nil {
		return d.err
	}
	if len(d.B) != 0 {
		return errors.New("config snapshot: bytes after the settings")
	}
	*c = x
	return nil
}

func encodeValue(e *binrec.Encoder, v reflect.Value) error {
	switch v.Kind() {
	case reflect.Bool:
		e.Flag(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.Int(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		e.Uint(v.Uint())
	case reflect.Float32, reflect.Float64:
		e.F64(v.Float())
	case reflect.String:
		e.Str(v.String())
	case reflect.Slice, reflect.Array:
		n := uint64(v.Len())
		if v.Kind() == reflect.Slice {
			if v.IsNil() {
				e.Byte(0)
				return nil
			}
			n++
		}
		e.Uint(n)
		for i := range v.Len() {
			if err := encodeValue(e, v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		keys := v.MapKeys()
		if v.Type().Key().Kind() != reflect.String {
			return fmt.Errorf("%w: %s", errSnapshotKind, v.Type())
		}
		slices.SortFunc(keys, func(x, y reflect.Value) int { return cmp.Compare(x.String(), y.String()) })
		if v.IsNil() {
			e.Byte(0)
			return nil
		}
		e.Uint(uint64(len(keys)) + 1)
		for _, k := range keys {
			if err := encodeValue(e, k); err != nil {
				return err
			}
			if err := encodeValue(e, v.MapIndex(k)); err != nil {
				return err
			}
		}
	case reflect.Pointer:
		if v.IsNil() {
			e.Byte(0)
			return nil
		}
		e.Byte(1)
		return encodeValue(e, v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				return fmt.Errorf("%w: %s.%s is unexported", errSnapshotKind, v.Type(), v.Type().Field(i).Name)
			}
			if err := encodeValue(e, v.Field(i)); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("%w: %s", errSnapshotKind, v.Type())
	}
	return nil
}

// snapDecoder is a binrec.Decoder that also stops at a field of a kind
// the codec does not write (err).
type snapDecoder struct {
	binrec.Decoder
	err error
}

// nilCount is a slice's or a map's count plus one, bounded by the bytes
// left: -1 for nil.
func (d *snapDecoder) nilCount() int {
	n := d.Uint()
	if n == 0 {
		return -1
	}
	if n-1 > uint64(len(d.B)) {
		d.Bad, d.B = true, nil
		return -1
	}
	return int(n - 1)
}

func (d *snapDecoder) value(v reflect.Value) {
	if d.err != nil || d.Bad {
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(d.Flag())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(d.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(d.Uint())
	case reflect.Float32, reflect.Float64:
		v.SetFloat(d.F64())
	case reflect.String:
		v.SetString(d.Str())
	case reflect.Slice:
		n := d.nilCount()
		if n < 0 {
			return
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			d.value(s.Index(i))
		}
		v.Set(s)
	case reflect.Array:
		if d.Count() != v.Len() {
			d.Bad, d.B = true, nil
			return
		}
		for i := range v.Len() {
			d.value(v.Index(i))
		}
	case reflect.Map:
		n := d.nilCount()
		if n < 0 {
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), n)
		for range n {
			k := reflect.New(v.Type().Key()).Elem()
			e := reflect.New(v.Type().Elem()).Elem()
			d.value(k)
			d.value(e)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Pointer:
		if d.Byte() == 0 {
			return
		}
		p := reflect.New(v.Type().Elem())
		d.value(p.Elem())
		v.Set(p)
	case reflect.Struct:
		for i := range v.NumField() {
			d.value(v.Field(i))
		}
	default:
		d.err = fmt.Errorf("%w: %s", errSnapshotKind, v.Type())
	}
}
