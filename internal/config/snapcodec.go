package config

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
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
	var b []byte
	if err := encodeValue(&b, reflect.ValueOf(c).Elem()); err != nil {
		return nil, err
	}
	return b, nil
}

func decodeConfig(b []byte, c *Config) error {
	d := snapDecoder{b: b}
	var x Config
	d.value(reflect.ValueOf(&x).Elem())
	if d.err != nil {
		return d.err
	}
	if len(d.b) != 0 {
		return errors.New("config snapshot: bytes after the settings")
	}
	*c = x
	return nil
}

func encodeValue(b *[]byte, v reflect.Value) error {
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			*b = append(*b, 1)
		} else {
			*b = append(*b, 0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		*b = binary.AppendVarint(*b, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		*b = binary.AppendUvarint(*b, v.Uint())
	case reflect.Float32, reflect.Float64:
		*b = binary.LittleEndian.AppendUint64(*b, math.Float64bits(v.Float()))
	case reflect.String:
		*b = binary.AppendUvarint(*b, uint64(v.Len()))
		*b = append(*b, v.String()...)
	case reflect.Slice, reflect.Array:
		n := uint64(v.Len())
		if v.Kind() == reflect.Slice {
			if v.IsNil() {
				*b = append(*b, 0)
				return nil
			}
			n++
		}
		*b = binary.AppendUvarint(*b, n)
		for i := range v.Len() {
			if err := encodeValue(b, v.Index(i)); err != nil {
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
			*b = append(*b, 0)
			return nil
		}
		*b = binary.AppendUvarint(*b, uint64(len(keys))+1)
		for _, k := range keys {
			if err := encodeValue(b, k); err != nil {
				return err
			}
			if err := encodeValue(b, v.MapIndex(k)); err != nil {
				return err
			}
		}
	case reflect.Pointer:
		if v.IsNil() {
			*b = append(*b, 0)
			return nil
		}
		*b = append(*b, 1)
		return encodeValue(b, v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				return fmt.Errorf("%w: %s.%s is unexported", errSnapshotKind, v.Type(), v.Type().Field(i).Name)
			}
			if err := encodeValue(b, v.Field(i)); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("%w: %s", errSnapshotKind, v.Type())
	}
	return nil
}

type snapDecoder struct {
	b   []byte
	err error
}

func (d *snapDecoder) fail() {
	if d.err == nil {
		d.err = errors.New("config snapshot: damaged")
	}
	d.b = nil
}

func (d *snapDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count is a length, bounded by the bytes left.
func (d *snapDecoder) count() int {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return 0
	}
	return int(n)
}

// nilCount is a slice's or a map's count plus one, bounded by the bytes
// left: -1 for nil.
func (d *snapDecoder) nilCount() int {
	n := d.uvarint()
	if n == 0 {
		return -1
	}
	if n-1 > uint64(len(d.b)) {
		d.fail()
		return -1
	}
	return int(n - 1)
}

func (d *snapDecoder) byte() byte {
	if len(d.b) < 1 {
		d.fail()
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *snapDecoder) value(v reflect.Value) {
	if d.err != nil {
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(d.byte() != 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x, n := binary.Varint(d.b)
		if n <= 0 {
			d.fail()
			return
		}
		d.b = d.b[n:]
		v.SetInt(x)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(d.uvarint())
	case reflect.Float32, reflect.Float64:
		if len(d.b) < 8 {
			d.fail()
			return
		}
		v.SetFloat(math.Float64frombits(binary.LittleEndian.Uint64(d.b)))
		d.b = d.b[8:]
	case reflect.String:
		n := d.count()
		v.SetString(string(d.b[:n]))
		d.b = d.b[n:]
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
		if d.count() != v.Len() {
			d.fail()
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
		if d.byte() == 0 {
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
