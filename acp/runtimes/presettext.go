package runtimes

import "strings"

// presetZH is the Chinese of the presets' texts (login hints, install
// notes), by catalogue key: the same as the window's catalogue
// (frontend/messages/agents/zh-CN.json; a test keeps them equal), for the
// command line, which speaks the system's language.
var presetZH = map[string]string{
	"agents_preset_claude_code_login":     "运行一次 `claude` 并用 /login 登录，或者提供 Anthropic API 密钥",
	"agents_preset_cline_login":           "运行 `cline auth` 登录，或者选择服务商并提供密钥",
	"agents_preset_codex_login":           "运行 `codex login`（ChatGPT 账号），或者提供 OpenAI API 密钥",
	"agents_preset_copilot_login":         "运行一次 `copilot` 并用 /login 登录（GitHub 账号），或者提供 GitHub 令牌",
	"agents_preset_gemini_login":          "运行一次 `gemini` 并选择 Login with Google，或者提供 Gemini API 密钥",
	"agents_preset_goose_install_note":    "其他安装方式见 https://block.github.io/goose。",
	"agents_preset_goose_login":           "运行 `goose configure` 选择服务商并输入它的密钥",
	"agents_preset_hermes_install_note":   "其他安装方式见 https://hermes-agent.nousresearch.com/docs。",
	"agents_preset_hermes_login":          "运行 `hermes model` 选择服务商并输入它的密钥",
	"agents_preset_kimi_login":            "运行一次 `kimi` 并用 /login 登录",
	"agents_preset_opencode_login":        "运行 `opencode auth login` 并选择服务商，或者在 ~/.config/opencode/opencode.json 中配置一个",
	"agents_preset_qwen_login":            "运行一次 `qwen` 并用 /auth 登录，或者提供 OpenAI 兼容的密钥（同时在该智能体的 env 中设置 OPENAI_BASE_URL 和 OPENAI_MODEL）",
	"agents_preset_reasonix_install_note": "请保留 npm 的可选依赖：程序在 @reasonix/cli-* 中。",
	"agents_preset_reasonix_login":        "运行 `reasonix setup` 选择服务商并输入它的密钥（保存在 Reasonix 的 .env 中）",
}

// PresetText is a preset's text (its LoginHint or InstallNote, whose
// catalogue key is key) in the language lang (a BCP 47 tag): the
// Chinese for any "zh", else text itself, the English.
func PresetText(key, text, lang string) string {
	if strings.HasPrefix(strings.ToLower(lang), "zh") {
		if z, ok := presetZH[key]; ok {
			return z
		}
	}
	return text
}
