"""Chat hooks' messages, made from the Forgejo payload as Forgejo's converters make them
(``services/webhook/{general,slack,discord,matrix,msteams}.go``): Slack's text with
``<url|text>`` links and attachments, Discord's embed, Matrix's notice (HTML and its
plain body, commits under ``io.gitea.commits``) and Microsoft Teams' adaptive card
(Forgejo's header, headline and "View in Forgejo" action; the per-event detail sections
are summed up in one text block).  Other chat types (dingtalk, telegram, feishu,
wechatwork, packagist, sourcehut_builds) are not converted: they get no message.
"""
from __future__ import annotations

import html
import json
import re
from urllib.parse import quote

from chalicelib.settings import get_settings

GREEN, GREEN_LIGHT, YELLOW, GREY = 0x1AC600, 0xBFE5BF, 0xFFD930, 0x4F545C
PURPLE, ORANGE, ORANGE_LIGHT, RED = 0x7289DA, 0xEB6420, 0xE68D60, 0xFF3232
# A submitted review's coarse event -> the word Forgejo's parseHookPullRequestEventType
# gives it, and Discord's colour.
REVIEWS = {"pull_request_approved": ("approved", GREEN),
           "pull_request_rejected": ("rejected", RED),
           "pull_request_comment": ("comment", GREY)}


def _short(ref: str) -> str:
    for prefix in ("refs/heads/", "refs/tags/", "refs/"):
        if ref.startswith(prefix):
            return ref[len(prefix):]
    return ref


def _segments(path: str) -> str:
    return "/".join(quote(p, safe="") for p in path.split("/"))


def _ref_url(repo_url: str, ref: str) -> str:
    kind = "tag" if ref.startswith("refs/tags/") else "branch"
    if not ref.startswith("refs/") and re.fullmatch(r"[0-9a-f]{40}", ref):
        kind = "commit"
    return f"{repo_url}/src/{kind}/{_segments(_short(ref))}"


def _login(user: dict | None) -> str:
    return (user or {}).get("login", "")


def _review_title(p: dict, ev: str) -> str:
    """Discord's, Teams' headline of a review: "[repo] Pull request review approved: #N t"."""
    return (f"[{p['repository']['full_name']}] Pull request review {REVIEWS[ev][0]}: "
            f"#{p['number']} {p['pull_request']['title']}")


class Formatter:
    """Forgejo's webhookPayloadFormatter: the one-line texts every chat type shares."""

    def __init__(self, link, name, *, with_sender: bool, with_repo: bool):
        self.link, self.name = link, name
        self.with_sender, self.with_repo = with_sender, with_repo

    def _finish(self, text: str, p: dict) -> str:
        if self.with_repo:
            text = f"[{p['repository']['full_name']}] {text}"
        if self.with_sender:
            text += f" by {self.name(_login(p.get('sender')))}"
        return text

    def issue(self, p: dict) -> tuple[str, str, str, int]:
        issue, action = p["issue"], p["action"]
        title = f"#{p['number']} {issue['title']}"
        link = self.link(f"{p['repository']['html_url']}/issues/{p['number']}", title)
        texts = {
            "opened": ("Issue opened: {}", ORANGE), "closed": ("Issue closed: {}", RED),
            "reopened": ("Issue re-opened: {}", YELLOW), "edited": ("Issue edited: {}", YELLOW),
            "unassigned": ("Issue unassigned: {}", YELLOW),
            "label_updated": ("Issue labels updated: {}", YELLOW),
            "label_cleared": ("Issue labels cleared: {}", YELLOW),
            "demilestoned": ("Issue milestone cleared: {}", YELLOW)}
        if action == "assigned":
            names = ", ".join(self.link(get_settings().app_url + quote(_login(u)), _login(u))
                              for u in issue.get("assignees") or [])
            text, color = f"Issue assigned to {names}: {link}", GREEN
        elif action == "milestoned":
            text, color = f"Issue milestoned to {(issue.get('milestone') or {}).get('title', '')}: {link}", YELLOW
        else:
            template, color = texts.get(action, ("{}", YELLOW))
            text = template.format(link)
        body = issue.get("body", "") if action in ("opened", "edited") else ""
        return self._finish(text, p), title, body, color

    def pull(self, p: dict) -> tuple[str, str, str, int]:
        pr, action = p["pull_request"], p["action"]
        title = f"#{p['number']} {pr['title']}"
        link = self.link(pr["url"], title)
        body, color = "", YELLOW
        if action == "opened":
            text, body, color = f"Pull request opened: {link}", pr.get("body", ""), GREEN
        elif action == "closed":
            text, color = ((f"Pull request merged: {link}", PURPLE) if pr.get("merged")
                           else (f"Pull request closed: {link}", RED))
        elif action == "edited":
            text, body = f"Pull request edited: {link}", pr.get("body", "")
        elif action == "assigned":
            names = ", ".join(self.link(get_settings().app_url + _login(u), _login(u))
                              for u in pr.get("assignees") or [])
            text, color = f"Pull request assigned to {names}: {link}", GREEN
        elif action == "milestoned":
            text = f"Pull request milestoned to {(pr.get('milestone') or {}).get('title', '')}: {link}"
        else:
            words = {"reopened": "re-opened", "unassigned": "unassigned",
                     "label_updated": "labels updated", "label_cleared": "labels cleared",
                     "synchronized": "synchronized", "demilestoned": "milestone cleared",
                     "review_requested": "review requested",
                     "review_request_removed": "review request removed"}
            text = f"Pull request {words.get(action, action)}: {link}"
        return self._finish(text, p), title, body, color

    def comment(self, p: dict) -> tuple[str, str, int]:
        title = f"#{p['issue']['number']} {p['issue']['title']}"
        kind, url = (("pull request", p["comment"]["pull_request_url"]) if p.get("is_pull")
                     else ("issue", p["comment"]["issue_url"]))
        link, action = self.link(url, title), p["action"]
        if action == "created":
            text = f"New comment on {kind} {link}"
            color = GREEN_LIGHT if p.get("is_pull") else ORANGE_LIGHT
        elif action == "edited":
            text, color = f"Comment edited on {kind} {link}", YELLOW
        else:
            text, color = f"Comment deleted on {kind} {link}", RED
        return self._finish(text, p), title, color

    def release(self, p: dict) -> tuple[str, int]:
        tag = p["release"]["tag_name"]
        link = self.link(f"{p['repository']['html_url']}/releases/tag/{_segments(tag)}", tag)
        word, color = {"published": ("created", GREEN), "updated": ("updated", YELLOW),
                       "deleted": ("deleted", RED)}.get(p["action"], (p["action"], YELLOW))
        return self._finish(f"Release {word}: {link}", p), color


# --- Slack -----------------------------------------------------------------------------------

def _slack_text(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _slack_link(url: str, text: str) -> str:
    return f"<{url}|{_slack_text(text)}>"


def _slack_name(name: str) -> str:
    return f"`{_slack_text(name.replace('`', chr(39)))}`"


SLACK = Formatter(_slack_link, _slack_name, with_sender=True, with_repo=True)


def slack(meta: dict, ev: str, p: dict) -> dict | None:
    attachments = None
    repo = p.get("repository") or {}
    if ev == "push":
        n = p["total_commits"]
        desc = "1 new commit" if n == 1 else f"{n} new commits"
        commits = _slack_link(p["compare_url"], desc) if p["compare_url"] else desc
        branch = _slack_link(_ref_url(repo["html_url"], p["ref"]), _short(p["ref"]))
        text = f"[{repo['full_name']}:{branch}] {commits} pushed by {_slack_name(_login(p['pusher']))}"
        lines = [f"{_slack_link(c['url'], c['id'][:7])}: {_slack_text(c['message'].split(chr(10))[0])}"
                 f" - {_slack_name(c['author']['name'])}" for c in p["commits"]]
        attachments = [{"fallback": "", "color": meta.get("color", ""), "title": repo["html_url"],
                        "title_link": repo["html_url"], "text": "\n".join(lines)}]
    elif ev == "create":
        link = _slack_link(_ref_url(repo["html_url"], p["ref"]), _short(p["ref"]))
        text = f"[{repo['full_name']}:{link}] {p['ref_type']} created by {_slack_name(_login(p['sender']))}"
    elif ev == "delete":
        text = (f"[{_slack_link(repo['html_url'], repo['full_name'])}:{_short(p['ref'])}] "
                f"{p['ref_type']} deleted by {_slack_name(_login(p['sender']))}")
    elif ev == "fork":
        text = (f"{_slack_link(p['forkee']['html_url'], p['forkee']['full_name'])} is forked to "
                f"{_slack_link(repo['html_url'], repo['full_name'])}")
    elif ev in ("issues", "pull_request"):
        text, title, body, color = (SLACK.issue if ev == "issues" else SLACK.pull)(p)
        if body:
            link = p["issue"]["html_url"] if ev == "issues" else p["pull_request"]["html_url"]
            attachments = [{"fallback": "", "color": f"{color:x}", "title": _slack_text(title),
                            "title_link": link, "text": _slack_text(body)}]
    elif ev == "issue_comment":
        text, title, color = SLACK.comment(p)
        attachments = [{"fallback": "", "color": f"{color:x}", "title": title,
                        "title_link": p["comment"]["html_url"],
                        "text": _slack_text(p["comment"]["body"])}]
    elif ev == "repository":
        word = "created" if p["action"] == "created" else "deleted"
        text = (f"[{_slack_link(repo['html_url'], repo['full_name'])}] Repository {word} by "
                f"{_slack_name(_login(p['sender']))}")
    elif ev == "release":
        text = SLACK.release(p)[0]
    elif ev in REVIEWS and p.get("action") == "reviewed":
        sender = _login(p["sender"])
        text = (f"[{_slack_link(repo['html_url'], repo['full_name'])}] Pull request review "
                f"{REVIEWS[ev][0]}: [#{p['number']} {p['pull_request']['title']}]"
                f"({repo['html_url']}/pulls/{p['number']}) by "
                f"{_slack_link(get_settings().app_url + sender, sender)}")
    else:
        return None
    return {"channel": meta.get("channel", ""), "text": text, "username": meta.get("username", ""),
            "icon_url": meta.get("icon_url", ""), "unfurl_links": 0, "link_names": 0,
            "attachments": attachments}


# --- Discord ---------------------------------------------------------------------------------

DISCORD = Formatter(lambda url, text: text, lambda name: name, with_sender=False, with_repo=True)


def _discord_escape(text: str) -> str:
    text = re.sub(r"(\d+)\.", r"\1\\.", text)
    for char in ("~", "*", "_"):
        text = re.sub(re.escape(char) + r"(.*?)" + re.escape(char),
                      lambda m, c=char: f"\\{c}{m.group(1)}\\{c}", text)
    for plain, escaped in (("* ", "\\* "), ("`", "\\`"), ("[", "\\["), ("]", "\\]"),
                           ("(", "\\("), (")", "\\)"), ("#", "\\#"), ("+ ", "\\+ "),
                           ("- ", "\\- "), ("---", "\\---"), ("!", "\\!"), ("|", "\\|"),
                           ("<", "\\<"), (">", "\\>")):
        text = text.replace(plain, escaped)
    return text


def discord(meta: dict, ev: str, p: dict) -> dict | None:
    repo = p.get("repository") or {}
    description, color = "", GREEN
    if ev == "push":
        branch = _short(p["ref"])
        n = p["total_commits"]
        desc, url = ("1 new commit", p["commits"][0]["url"]) if n == 1 and p["commits"] else \
            (f"{n} new commits", p["compare_url"])
        url = url or f"{repo['html_url']}/src/{_segments(branch)}"
        title = f"[{repo['full_name']}:{branch}] {desc}"
        lines = []
        for c in p["commits"]:
            message = _discord_escape(c["message"].split("\n")[0].rstrip("\r"))
            if len(message) > 50:
                message = message[:47] + "..."
            lines.append(f"[`{c['id'][:7]}`]({c['url']}) {message} \\- {c['author']['name']}")
        description = "\n".join(lines)
    elif ev in ("create", "delete"):
        ref = _short(p["ref"])
        title = f"[{repo['full_name']}] {p['ref_type']} {ref} {'created' if ev == 'create' else 'deleted'}"
        url, color = f"{repo['html_url']}/src/{_segments(ref)}", GREEN if ev == "create" else RED
    elif ev == "fork":
        title, url = f"{p['forkee']['full_name']} is forked to {repo['full_name']}", repo["html_url"]
    elif ev == "issues":
        title, _, description, color = DISCORD.issue(p)
        url = p["issue"]["html_url"]
    elif ev == "pull_request":
        title, _, description, color = DISCORD.pull(p)
        url = p["pull_request"]["html_url"]
    elif ev == "issue_comment":
        title, _, color = DISCORD.comment(p)
        description, url = p["comment"]["body"], p["comment"]["html_url"]
    elif ev == "repository":
        created = p["action"] == "created"
        title = f"[{repo['full_name']}] Repository {'created' if created else 'deleted'}"
        url, color = (repo["html_url"], GREEN) if created else ("", RED)
    elif ev == "release":
        title, color = DISCORD.release(p)
        description, url = p["release"]["body"], p["release"]["html_url"]
    elif ev in REVIEWS and p.get("action") == "reviewed":
        title, color = _review_title(p, ev), REVIEWS[ev][1]
        description, url = (p.get("review") or {}).get("content", ""), p["pull_request"]["html_url"]
    else:
        return None
    if len(title) > 256:
        title = title[:253] + "..."
    if len(description) > 2000:
        description = description[:1997] + "..."
    sender = p.get("sender") or {}
    body = {"username": meta.get("username", "")}
    if meta.get("icon_url"):
        body["avatar_url"] = meta["icon_url"]
    body["embeds"] = [{"title": title, "description": description, "url": url, "color": color,
                       "author": {"name": _login(sender),
                                  "url": get_settings().app_url + _login(sender),
                                  "icon_url": sender.get("avatar_url", "")}}]
    return body


# --- Matrix ----------------------------------------------------------------------------------

def _html_link(url: str, text: str) -> str:
    return f'<a href="{html.escape(url)}">{html.escape(text)}</a>'


MATRIX = Formatter(_html_link, lambda name: name, with_sender=True, with_repo=True)


def matrix(meta: dict, ev: str, p: dict) -> dict | None:
    repo = p.get("repository") or {}
    commits = None
    if ev == "push":
        n = p["total_commits"]
        lines = [f"{_html_link(c['url'], c['id'][:7])}: {c['message']} - {c['author']['name']}"
                 for c in p["commits"]]
        text = (f"[{repo['full_name']}] {_login(p['pusher'])} pushed "
                f"{'1 commit' if n == 1 else f'{n} commits'} to {html.escape(_short(p['ref']))}:<br>"
                + "<br>".join(lines))
        commits = p["commits"] or None
    elif ev == "create":
        link = _html_link(_ref_url(repo["html_url"], p["ref"]), _short(p["ref"]))
        text = f"[{repo['full_name']}:{link}] {p['ref_type']} created by {_login(p['sender'])}"
    elif ev == "delete":
        text = (f"[{_html_link(repo['html_url'], repo['full_name'])}:{_short(p['ref'])}] "
                f"{p['ref_type']} deleted by {_login(p['sender'])}")
    elif ev == "fork":
        text = (f"{_html_link(p['forkee']['html_url'], p['forkee']['full_name'])} is forked to "
                f"{_html_link(repo['html_url'], repo['full_name'])}")
    elif ev == "issues":
        text = MATRIX.issue(p)[0]
    elif ev == "pull_request":
        text = MATRIX.pull(p)[0]
    elif ev == "issue_comment":
        text = MATRIX.comment(p)[0]
    elif ev == "repository":
        word = "created" if p["action"] == "created" else "deleted"
        text = (f"[{_html_link(repo['html_url'], repo['full_name'])}] Repository {word} by "
                f"{_login(p['sender'])}")
    elif ev == "release":
        text = MATRIX.release(p)[0]
    elif ev in REVIEWS and p.get("action") == "reviewed":
        sender, pr = _login(p["sender"]), p["pull_request"]
        title = _html_link(pr["html_url"], f"#{p['number']} {pr['title']}")
        text = (f"[{_html_link(repo['html_url'], repo['full_name'])}] Pull request review "
                f"{REVIEWS[ev][0]}: {title} "
                f"by {_html_link(get_settings().app_url + quote(sender, safe=''), sender)}")
    else:
        return None
    plain = re.sub(r'<a [^>]*?href="([^">]*?)">(.*?)</a>', r"[\2](\1)", text).replace("<br>", "\n")
    body = {"body": plain, "msgtype": {1: "m.notice", 2: "m.text"}.get(
        int(meta.get("message_type") or 0), ""), "format": "org.matrix.custom.html",
        "formatted_body": text}
    if commits:
        body["io.gitea.commits"] = commits
    return body


# --- Microsoft Teams -------------------------------------------------------------------------

TEAMS = Formatter(lambda url, text: text, lambda name: name, with_sender=False, with_repo=False)


def msteams(meta: dict, ev: str, p: dict) -> dict | None:
    repo = p.get("repository") or {}
    detail, style, target = "", "default", repo.get("html_url", "")
    if ev == "push":
        branch, n = _short(p["ref"]), p["total_commits"]
        title = f"[{branch}] {'1 new commit' if n == 1 else f'{n} new commits'}"
        detail = "\n\n".join(f"[{c['id'][:7]}]({c['url']}) {c['message'].splitlines()[0] if c['message'] else ''}"
                             for c in p["commits"])
        target, style = p["compare_url"] or target, "accent"
    elif ev in ("create", "delete"):
        word = "created" if ev == "create" else "deleted"
        title = f"{p['ref_type'].capitalize()} {word}: {_short(p['ref'])}"
        style = "good" if ev == "create" else "attention"
    elif ev == "fork":
        title = f"[{p['forkee']['full_name']}]({p['forkee']['html_url']}) is forked to {repo['full_name']}"
        style = "accent"
    elif ev in ("issues", "pull_request"):
        title, _, detail, _ = (TEAMS.issue if ev == "issues" else TEAMS.pull)(p)
        target = (p["issue"] if ev == "issues" else p["pull_request"])["html_url"]
    elif ev == "issue_comment":
        title, _, _ = TEAMS.comment(p)
        detail, target = p["comment"]["body"], p["comment"]["html_url"]
    elif ev == "repository":
        title = f"Repository {p['action']}"
    elif ev == "release":
        title = TEAMS.release(p)[0]
        detail, target = p["release"]["body"], p["release"]["html_url"]
    elif ev in REVIEWS and p.get("action") == "reviewed":
        title = _review_title(p, ev)
        detail, target = (p.get("review") or {}).get("content", ""), p["pull_request"]["html_url"]
        style = {"approved": "good", "rejected": "attention"}.get(REVIEWS[ev][0], "default")
    else:
        return None
    sender = p.get("sender") or p.get("pusher")
    if sender:
        who = sender.get("full_name") and f"{sender['full_name']} (@{_login(sender)})" \
            or f"@{_login(sender)}"
        title = f"{title} by [{who}]({sender.get('html_url', '')})"
    body = [{"type": "Container", "items": [{"type": "TextBlock", "text": f"💬 Update | [{repo.get('full_name', '')}]({repo.get('html_url', '')})",
                                            "size": "Small", "weight": "Bolder", "isSubtle": True}]},
            {"type": "Container", "style": style, "items": [{"type": "TextBlock", "text": title,
                                                             "style": "heading"}]}]
    if detail:
        body.append({"type": "Container", "items": [{"type": "TextBlock", "text": detail,
                                                     "wrap": True}]})
    return {"type": "AdaptiveCard", "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
            "version": "1.5", "msteams": {"width": "Full"}, "body": body,
            "actions": [{"type": "Action.OpenUrl", "title": "View in Forgejo", "url": target}],
            "style": "default"}


CONVERTERS = {"slack": slack, "discord": discord, "matrix": matrix, "msteams": msteams}


def message(hook, payload) -> dict | None:
    """The chat message ``hook`` gets for ``payload`` (None: its type or the event has
    no converter here)."""
    convert = CONVERTERS.get(hook.hook_type)
    if convert is None:
        return None
    meta = json.loads(hook.config or "{}")
    return convert(meta, payload.event, payload.data)
