// Package fill sets every field of a value, recursively, to a value of its
// own, for the round-trip tests of kb's binary codecs (the activation
// index's records, kb.yaml's snapshot): a field a codec drops or swaps,
// added after the codec was written, fails them.
package fill

import (
	"fmt"
	"reflect"
	"time"
)

// Fill fills the value v points to (a settable value); n counts the
// values set, so that each differs from the others. It fails on a kind it
// does not know and on an unexported field, which a codec could not see.
func Fill(v reflect.Value, n *int) error {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", *n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(-*n * 1000))
	case reflect.Float64:
		v.SetFloat(float64(*n) + 0.25)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			if err := Fill(s.Index(i), n); err != nil {
				return err
			}
		}
		v.Set(s)
	case reflect.Array:
		for i := range v.Len() {
			if err := Fill(v.Index(i), n); err != nil {
				return err
			}
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for range 2 {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			if err := Fill(k, n); err != nil {
				return err
			}
			if err := Fill(e, n); err != nil {
				return err
			}
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		if err := Fill(p.Elem(), n); err != nil {
			return err
		}
		v.Set(p)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2025, 11, 17, 23, 50, *n, 38000+*n, time.UTC)))
			return nil
		}
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				return fmt.Errorf("%s.%s: an unexported field a codec cannot see", v.Type(), v.Type().Field(i).Name)
			}
			if err := Fill(v.Field(i), n); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("%s: a kind fill does not know (%s); teach it, and the codec", v.Type(), v.Kind())
	}
	return nil
}
