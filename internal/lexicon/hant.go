package lexicon

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Traditional Chinese, as written in Taiwan and Hong Kong, spells many
// common characters apart from the Simplified the cue lists are written
// in: 沒有 for 没有, 錯誤 for 错误, 還是不 for 还是不, 顯示 for 显示. FoldHant
// maps those characters to their Simplified forms, so that every cue list
// reads both scripts without listing each phrase twice. Only the
// characters that differ are listed (a Traditional character with one
// common Simplified form); both forms are three bytes in UTF-8, so folded
// text keeps every byte offset.
var hantPairs = `
這这 個个 們们 說说 話话 為为 爲为 會会 來来 時时 間间 問问 題题 對对 錯错 誤误 沒没 還还 顯显 開开
關关 後后 從从 過过 麼么 樣样 無无 動动 啟启 實实 現现 連连 結结 試试 測测 執执 檔档 裡里 裏里 應应
該该 與与 讓让 請请 別别 處处 點点 壞坏 報报 變变 換换 刪删 寫写 讀读 轉转 載载 導导 資资 庫库 數数
據据 碼码 標标 籤签 頁页 網网 絡络 線线 條条 單单 設设 選选 擇择 項项 鍵键 輸输 圖图 檢检 確确 認认
證证 驗验 錄录 紀纪 記记 憶忆 體体 頭头 調调 參参 雜杂 亂乱 斷断 續续 繼继 舊旧 專专 業业 務务 類类
區区 塊块 層层 級级 號号 統统 計计 劃划 畫画 機机 電电 腦脑 視视 邊边 欄栏 雙双 幾几 總总 衝冲 穩稳
當当 閃闪 潰溃 壓压 縮缩 隱隐 彈弹 聽听 覺觉 經经 歷历 發发 髮发 給给 幫帮 僅仅 儘尽 盡尽 範范 圍围
內内 夠够 並并 於于 產产 態态 況况 風风 規规 則则 際际 權权 響响 維维 護护 歡欢 雖虽 東东 義义 議议
觀观 歸归 納纳 極极 簡简 潔洁 難难 復复 複复 製制 貼贴 廣广 傳传 遞递 輪轮 詢询 長长 張张 帳账 戶户
鐘钟 週周 萬万 價价 錢钱 買买 賣卖 費费 貨货 車车 運运 軟软 驅驱 腳脚 環环 組组 織织 員员 隊队 紅红
綠绿 藍蓝 黃黄 顏颜 筆笔 術术 語语 譯译 邏逻 輯辑 輕轻 鬆松 緊紧 離离 進进 兒儿 親亲 愛爱 戰战 爭争
勝胜 敗败 練练 習习 慣惯 異异 謝谢 煩烦 惱恼 擔担 憂忧 慮虑 優优 勢势 強强 準准 備备 預预 順顺 節节
約约 寬宽 髒脏 淨净 乾干 幹干 濕湿 熱热 涼凉 氣气 溫温 讚赞 嗎吗 囉啰 嘗尝 雲云 屬属 擴扩 蓋盖 閱阅
訊讯 聲声 樂乐 盤盘 螢萤 麵面 彙汇 匯汇 紙纸 櫃柜 閉闭 鎖锁 遷迁 創创 構构 築筑 裝装 縱纵 橫横 豎竖
齊齐 稱称 憑凭 註注 冊册 郵邮 鏈链 狀状 績绩 監监 適适 補补 衛卫 擊击 臺台 礙碍 誌志 盪荡 搖摇 遺遗
爛烂 喚唤 訂订 舉举 謂谓 險险 決决 沖冲 誰谁 麗丽 鳥鸟 魚鱼 馬马 門门 閒闲 闖闯 頻频 顆颗 額额 顧顾
飛飞 飯饭 館馆 鬧闹 齡龄 龍龙 龜龟 礎础 禮礼 稅税 窮穷 競竞 籃篮 糧粮 純纯 紛纷 細细 終终 絕绝 絲丝
綁绑 綜综 綿绵 緒绪 締缔 編编 緩缓 縣县 繫系 繪绘 罰罚 罷罢 聞闻 聯联 聰聪 職职 肅肃 脅胁 脈脉 膚肤
膠胶 臉脸 興兴 艱艰 藝艺 蘇苏 蘭兰 虛虚 蟲虫 衆众 襯衬 見见 覽览 觸触 討讨 訓训 託托 許许 訪访 診诊
詞词 詳详 課课 談谈 諒谅 論论 諸诸 講讲 識识 譜谱 豐丰 貝贝 負负 財财 貢贡 貫贯 責责 賞赏 質质 購购
贊赞 趕赶 趨趋 跡迹 踐践 躍跃 軌轨 軍军 較较 輔辅 輝辉 輩辈 辦办 辭辞 農农 遊游 達达 違违 遠远 鄉乡
醫医 釋释 鋼钢 鏡镜 鐵铁 闊阔 陣阵 陰阴 陳陈 陸陆 陽阳 階阶 隨随 雞鸡 靈灵 靜静 頂顶 須须 頓顿 領领
願愿 飽饱 餘余 駕驾 驚惊 鬥斗 魯鲁 鮮鲜 麥麦 黨党
`

var hantFold = sync.OnceValue(func() map[rune]rune {
	m := map[rune]rune{}
	for _, p := range strings.Fields(hantPairs) {
		t, n := utf8.DecodeRuneInString(p)
		s, _ := utf8.DecodeRuneInString(p[n:])
		m[t] = s
	}
	return m
})

// FoldHant returns s with its Traditional Chinese characters folded to
// their Simplified forms (hantPairs), the same length in bytes; s itself
// when it holds none, or when it holds kana: Japanese writes many of the
// same characters (動かない, 言語) and its cue lists are in its own forms.
func FoldHant(s string) string {
	i := 0
	for i < len(s) && s[i] < 0xe3 { // below U+3000: no Han character
		i++
	}
	if i == len(s) {
		return s
	}
	for _, r := range s[i:] {
		if unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) {
			return s
		}
	}
	m := hantFold()
	var b []byte
	for j, r := range s[i:] {
		f, ok := m[r]
		if !ok {
			continue
		}
		if b == nil {
			b = []byte(s)
		}
		utf8.EncodeRune(b[i+j:], f)
	}
	if b == nil {
		return s
	}
	return string(b)
}
