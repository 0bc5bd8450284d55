package observations

import "testing"

// A job gets ids and plain values; a bare name of a record, self or an
// instance variable passed to an enqueue call is the record itself.
func TestRecordArg(t *testing.T) {
	for code, want := range map[string]bool{
		"OrderMailer.perform_async(@order)":                                  true,
		"ReportJob.perform_in(5.minutes, report)":                            true,
		"refund_task.delay(refund)":                                          true,
		"sync.apply_async(args=[self], countdown=10)":                        true,
		"q.enqueue(export_rows, statements)":                                 true,
		"OrderConfirmationJob.perform_async(@order.id, current_user.locale)": false,
		"GiftCardEmailJob.perform_async(id, recipient_email)":                false,
		"notify.delay(order_id, due_on, amount_cents)":                       false,
		"sync.apply_async(args=[invoice.pk], countdown=10)":                  false,
		"ReportJob.perform_later(report_ids)":                                false,
		"Cleanup.perform_async(Time.now.to_i)":                               false,
		"q.enqueue(export_rows, \"2026-03\")":                                false,
	} {
		if got := recordArg(code); got != want {
			t.Errorf("recordArg(%q) = %v, want %v", code, got, want)
		}
	}
}

func FuzzRecordArg(f *testing.F) {
	f.Add("Job.perform_async(@order, x)")
	f.Add("t.apply_async(args=[self, (1, 2)], countdown=3")
	f.Fuzz(func(t *testing.T, s string) { recordArg(s) })
}
