#!/usr/bin/env python3
"""The whole OAuth 2.1 flow driven by an independent client: Debian's python3-authlib.

Usage: authlib_flow.py BASE_URL EMAIL PASSWORD

Discovery (authlib's RFC 8414 metadata validator, and its OpenID Connect one on the mirror),
registration (RFC 7591; the answer checked with authlib's client metadata claims), PKCE S256
(authlib computes the challenge), the sign-in form posted as a browser posts it (every field of
the form, the clicked button's name and value, the cookie of the page), the code exchange
(authlib checks state), a search with the token, refresh rotation, and the reuse of a rotated
refresh token refused. Prints one JSON report on stdout; test/oauth/authlib.test.ts asserts it.
Nothing here decides pass or fail except authlib's own checks, which raise.
"""
import json
import sys
from html.parser import HTMLParser
from urllib.parse import parse_qs, urljoin, urlparse

import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session
from authlib.oauth2.rfc7591 import ClientMetadataClaims
from authlib.oauth2.rfc8414 import AuthorizationServerMetadata

REDIRECT_URI = 'http://127.0.0.1:40123/callback'
QUERY = 'zqxauthlibprobe.com'


class SignInForm(HTMLParser):
    """The first form of a page: its action, its fields in document order, its submit buttons."""

    def __init__(self):
        super().__init__()
        self.action = None
        self.fields = []
        self.buttons = []
        self._in_form = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'form' and self.action is None:
            self.action = a.get('action', '')
            self._in_form = True
        elif self._in_form and tag == 'input' and a.get('name'):
            self.fields.append([a['name'], a.get('value', '')])
        elif self._in_form and tag == 'button' and a.get('name'):
            self.buttons.append((a['name'], a.get('value', ''), a))

    def handle_endtag(self, tag):
        if tag == 'form':
            self._in_form = False


def oauth_error(call):
    """The OAuth error code an authlib call raised, or None when it succeeded."""
    try:
        call()
        return None
    except Exception as err:  # authlib raises OAuthError subclasses carrying .error
        return getattr(err, 'error', repr(err))


def main(base, email, password):
    report = {'authlib': __import__('authlib').__version__}
    browser = requests.Session()
    browser.trust_env = False

    # 1. Discovery: authlib's RFC 8414 validator (it raises on any problem), and OpenID discovery,
    # which the server does not serve (RFC 8414 is its one discovery document).
    meta = AuthorizationServerMetadata(browser.get(base + '/.well-known/oauth-authorization-server').json())
    try:
        meta.validate()
        rfc8414_error = None
    except Exception as err:
        rfc8414_error = repr(err)
    openid = browser.get(base + '/.well-known/openid-configuration')
    report['discovery'] = {'issuer': meta['issuer'], 'scopes_supported': meta.get('scopes_supported'), 'rfc8414_error': rfc8414_error, 'openid_configuration_status': openid.status_code}

    # 2. Registration (RFC 7591).
    reg = browser.post(meta['registration_endpoint'], json={'client_name': 'authlib client', 'redirect_uris': [REDIRECT_URI], 'scope': 'pricing:read'})
    registered = reg.json()
    ClientMetadataClaims(registered, {}).validate()
    report['registration'] = {'status': reg.status_code, 'cache_control': reg.headers.get('cache-control'), 'client_id': registered.get('client_id'), 'token_endpoint_auth_method': registered.get('token_endpoint_auth_method'), 'client_secret': registered.get('client_secret')}

    # 3. The authorization request, PKCE S256 computed by authlib.
    client = OAuth2Session(registered['client_id'], redirect_uri=REDIRECT_URI, scope='pricing:read', code_challenge_method='S256', token_endpoint_auth_method='none')
    client.trust_env = False
    verifier = generate_token(64)
    url, state = client.create_authorization_url(meta['authorization_endpoint'], code_verifier=verifier)
    asked = {k: v[0] for k, v in parse_qs(urlparse(url).query).items()}
    report['authorization_request'] = {'code_challenge_method': asked.get('code_challenge_method'), 'has_challenge': bool(asked.get('code_challenge')), 'state': state}

    # 4. The sign-in form as a browser posts it.
    page = browser.get(url, headers={'accept': 'text/html'}, allow_redirects=False)
    form = SignInForm()
    form.feed(page.text)
    fields = [[name, email if name == 'email' else password if name == 'password' else value] for name, value in form.fields]
    approve = next(b for b in form.buttons if b[1] == 'approve')
    answer = browser.post(urljoin(page.url, form.action), data=fields + [[approve[0], approve[1]]], headers={'accept': 'text/html'}, allow_redirects=False)
    location = answer.headers.get('location', '')
    back = {k: v[0] for k, v in parse_qs(urlparse(location).query).items()}
    report['sign_in'] = {'page_status': page.status_code, 'field_names': [n for n, _ in form.fields], 'status': answer.status_code, 'iss': back.get('iss'), 'state_echoed': back.get('state') == state, 'has_code': 'code' in back}

    # 5. The code exchange (authlib checks state against the callback).
    token = client.fetch_token(meta['token_endpoint'], authorization_response=location, code_verifier=verifier)
    report['token'] = {'token_type': token.get('token_type'), 'scope': token.get('scope'), 'expires_in': token.get('expires_in'), 'has_refresh_token': bool(token.get('refresh_token'))}

    # 6. The token at work, sent by authlib.
    found = client.post(base + '/api/domain/search', json={'q': QUERY}).json()
    report['search'] = {'price_masked': found['result']['price_masked'], 'price': found['result']['price']}

    # 7. Refresh rotation, then 8. the rotated token presented again.
    first_refresh = token['refresh_token']
    rotated = client.refresh_token(meta['token_endpoint'], refresh_token=first_refresh)
    searched = client.post(base + '/api/domain/search', json={'q': QUERY})
    report['refresh'] = {'rotated': rotated['refresh_token'] != first_refresh, 'new_access_token': rotated['access_token'] != token['access_token'], 'search_status': searched.status_code}
    report['reuse'] = oauth_error(lambda: client.refresh_token(meta['token_endpoint'], refresh_token=first_refresh))
    after = browser.post(base + '/api/domain/search', json={'q': QUERY}, headers={'authorization': 'Bearer ' + rotated['access_token']})
    report['after_reuse'] = {'search_status': after.status_code, 'refresh': oauth_error(lambda: client.refresh_token(meta['token_endpoint'], refresh_token=rotated['refresh_token']))}
    # The code is single-use: presented again, refused.
    report['code_replay'] = oauth_error(lambda: client.fetch_token(meta['token_endpoint'], authorization_response=location, code_verifier=verifier))

    print(json.dumps(report))


if __name__ == '__main__':
    main(*sys.argv[1:4])
