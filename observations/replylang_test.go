package observations

import "testing"

// A person who asks to be answered in a language the agent did not just
// use corrects it, in whatever language and form (an order or a polite
// question) they ask; asked of an agent that already speaks it, the same
// words only state a preference.
func TestReplyLanguageCorrection(t *testing.T) {
	english := "I checked the configuration and the build passes. Would you like me to update the deployment script as well, or should we keep the current one?"
	chinese := "我已经检查了配置文件，构建通过了。你希望我也更新部署脚本吗？"
	spanish := "Revisé la configuración y el build pasa sin errores. ¿Quieres que actualice también el script de despliegue o dejamos el actual?"
	german := "Ich habe die Konfiguration geprüft und der Build läuft durch. Soll ich das Deploy-Skript auch anpassen?"
	for _, c := range []struct {
		agent, msg string
		want       bool
	}{
		{english, "หยุดตอบภาษาอังกฤษ! ฉันสั่งภาษาไทย คุณต้องตอบภาษาไทยเท่านั้น", true},
		{english, "türkçe sorar mısın", true},
		{english, "j'aimerais que tout soit en français lors de nos échanges", true},
		{english, "bitte antworte immer auf Deutsch", true},
		{english, "以后用中文回答", true},
		{chinese, "日本語で答えてください", true},
		{chinese, "please answer in English from now on", true},
		{english, "please answer in English from now on", false},
		{german, "bitte antworte immer auf Deutsch", false},
		{chinese, "以后用中文回答", false},
		{english, "why do you answer in English?", false},
		{spanish, "please answer in English", true},
		{spanish, "responde siempre en español", false},
		{english, "responde siempre en español", true},
	} {
		s := newSession("p1").user("check the build").call("Bash", `{"command":"make build"}`, "ok").
			say(c.agent).user(c.msg).s
		cs := ofType(Extract(s, nil, nil), TypeCorrection)
		if got := len(cs) > 0; got != c.want {
			t.Errorf("after %.20q, %q: correction %v, want %v", c.agent, c.msg, got, c.want)
		}
	}
}

func TestScriptOf(t *testing.T) {
	for s, want := range map[string]string{
		"hello world": "latin", "你好世界": "han", "こんにちは世界": "kana", "안녕하세요": "hangul",
		"สวัสดี": "thai", "привет мир": "cyrillic", "123 !!": "",
		"I updated `配置.yaml` and the tests pass": "latin",
	} {
		if got := scriptOf(s); got != want {
			t.Errorf("scriptOf(%q) = %q, want %q", s, got, want)
		}
	}
}
