/**
 * Webhook payloads as the forges document them (GitHub's "Webhook events and payloads",
 * GitLab's "Webhook events", Gitea's "Webhooks" page; Forgejo sends Gitea's payloads):
 * faithful subsets keeping every field a receiver might read, with the documented
 * example values. Tests sign them themselves. Also used by the e2e tests of issue 29.
 */

export const GITHUB_PUSH = {
  ref: 'refs/heads/main',
  before: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
  after: '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
  created: false,
  deleted: false,
  forced: false,
  base_ref: null,
  compare: 'https://github.com/Codertocat/Hello-World/compare/6113728f27ae...0d1a26e67d8f',
  commits: [
    {
      id: '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
      tree_id: 'f9d2a07e9488b91af2641b26b9407fe22a451433',
      distinct: true,
      message: 'Update README.md',
      timestamp: '2019-05-15T15:20:30-05:00',
      url: 'https://github.com/Codertocat/Hello-World/commit/0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
      author: { name: 'Codertocat', email: '21031067+Codertocat@users.noreply.github.com', username: 'Codertocat' },
      committer: { name: 'GitHub', email: 'noreply@github.com', username: 'web-flow' },
      added: [],
      removed: [],
      modified: ['README.md'],
    },
  ],
  head_commit: {
    id: '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
    tree_id: 'f9d2a07e9488b91af2641b26b9407fe22a451433',
    distinct: true,
    message: 'Update README.md',
    timestamp: '2019-05-15T15:20:30-05:00',
    url: 'https://github.com/Codertocat/Hello-World/commit/0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
    author: { name: 'Codertocat', email: '21031067+Codertocat@users.noreply.github.com', username: 'Codertocat' },
    committer: { name: 'GitHub', email: 'noreply@github.com', username: 'web-flow' },
    added: [],
    removed: [],
    modified: ['README.md'],
  },
  repository: {
    id: 186853002,
    node_id: 'MDEwOlJlcG9zaXRvcnkxODY4NTMwMDI=',
    name: 'Hello-World',
    full_name: 'Codertocat/Hello-World',
    private: false,
    owner: { name: 'Codertocat', email: '21031067+Codertocat@users.noreply.github.com', login: 'Codertocat', id: 21031067 },
    html_url: 'https://github.com/Codertocat/Hello-World',
    fork: false,
    url: 'https://github.com/Codertocat/Hello-World',
    git_url: 'git://github.com/Codertocat/Hello-World.git',
    ssh_url: 'git@github.com:Codertocat/Hello-World.git',
    clone_url: 'https://github.com/Codertocat/Hello-World.git',
    svn_url: 'https://github.com/Codertocat/Hello-World',
    default_branch: 'main',
    master_branch: 'main',
  },
  pusher: { name: 'Codertocat', email: '21031067+Codertocat@users.noreply.github.com' },
  sender: { login: 'Codertocat', id: 21031067, type: 'User' },
};

/** A branch deleted: `deleted: true`, `after` all zeros, no head commit. */
export const GITHUB_BRANCH_DELETED = {
  ...GITHUB_PUSH,
  ref: 'refs/heads/simple-tag-branch',
  before: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
  after: '0000000000000000000000000000000000000000',
  created: false,
  deleted: true,
  commits: [],
  head_commit: null,
};

export const GITHUB_TAG_PUSH = { ...GITHUB_PUSH, ref: 'refs/tags/simple-tag', created: true, base_ref: 'refs/heads/main' };

export const GITHUB_PING = {
  zen: 'Non-blocking is better than blocking.',
  hook_id: 30,
  hook: {
    type: 'Repository',
    id: 30,
    name: 'web',
    active: true,
    events: ['push', 'pull_request'],
    config: { content_type: 'json', insecure_ssl: '0', url: 'https://example.com/hooks/git/proj_x' },
  },
  repository: GITHUB_PUSH.repository,
  sender: GITHUB_PUSH.sender,
};

const githubRepo = GITHUB_PUSH.repository;

export const GITHUB_PULL_REQUEST_OPENED = {
  action: 'opened',
  number: 2,
  pull_request: {
    url: 'https://api.github.com/repos/Codertocat/Hello-World/pulls/2',
    id: 279147437,
    html_url: 'https://github.com/Codertocat/Hello-World/pull/2',
    number: 2,
    state: 'open',
    locked: false,
    title: 'Update the README with new information.',
    body: 'This is a pretty simple change that we need to pull into main.',
    merged: false,
    merged_at: null,
    merge_commit_sha: null,
    head: {
      label: 'Codertocat:changes',
      ref: 'changes',
      sha: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821',
      user: { login: 'Codertocat', id: 21031067 },
      repo: githubRepo,
    },
    base: {
      label: 'Codertocat:main',
      ref: 'main',
      sha: 'f95f852bd8fca8fcc58a9a2d6c842781e32a215e',
      user: { login: 'Codertocat', id: 21031067 },
      repo: githubRepo,
    },
  },
  repository: githubRepo,
  sender: GITHUB_PUSH.sender,
};

/** The same pull request from a fork: the head repository is someone else's. */
export const GITHUB_PULL_REQUEST_FROM_FORK = {
  ...GITHUB_PULL_REQUEST_OPENED,
  pull_request: {
    ...GITHUB_PULL_REQUEST_OPENED.pull_request,
    head: {
      ...GITHUB_PULL_REQUEST_OPENED.pull_request.head,
      label: 'Octocat:changes',
      repo: {
        ...githubRepo,
        full_name: 'Octocat/Hello-World',
        html_url: 'https://github.com/Octocat/Hello-World',
        clone_url: 'https://github.com/Octocat/Hello-World.git',
        ssh_url: 'git@github.com:Octocat/Hello-World.git',
        fork: true,
      },
    },
  },
};

// ---- GitLab ----

const gitlabProject = {
  id: 15,
  name: 'Diaspora',
  description: '',
  web_url: 'http://example.com/mike/diaspora',
  avatar_url: null,
  git_ssh_url: 'git@example.com:mike/diaspora.git',
  git_http_url: 'http://example.com/mike/diaspora.git',
  namespace: 'Mike',
  visibility_level: 0,
  path_with_namespace: 'mike/diaspora',
  default_branch: 'master',
  homepage: 'http://example.com/mike/diaspora',
  url: 'git@example.com:mike/diaspora.git',
  ssh_url: 'git@example.com:mike/diaspora.git',
  http_url: 'http://example.com/mike/diaspora.git',
};

export const GITLAB_PUSH = {
  object_kind: 'push',
  event_name: 'push',
  before: '95790bf891e76fee5e1747ab589903a6a1f80f22',
  after: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
  ref: 'refs/heads/master',
  ref_protected: true,
  checkout_sha: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
  user_id: 4,
  user_name: 'John Smith',
  user_username: 'jsmith',
  user_email: 'john@example.com',
  project_id: 15,
  project: gitlabProject,
  repository: {
    name: 'Diaspora',
    url: 'git@example.com:mike/diaspora.git',
    description: '',
    homepage: 'http://example.com/mike/diaspora',
    git_http_url: 'http://example.com/mike/diaspora.git',
    git_ssh_url: 'git@example.com:mike/diaspora.git',
    visibility_level: 0,
  },
  commits: [
    {
      id: 'b6568db1bc1dcd7f8b4d5a946b0b91f9dacd7327',
      message: 'Update Catalan translation to e38cb41.\n\nSee https://gitlab.com/gitlab-org/gitlab for more information',
      title: 'Update Catalan translation to e38cb41.',
      timestamp: '2011-12-12T14:27:31+02:00',
      url: 'http://example.com/mike/diaspora/commit/b6568db1bc1dcd7f8b4d5a946b0b91f9dacd7327',
      author: { name: 'Jordi Mallach', email: 'jordi@softcatala.org' },
      added: ['CHANGELOG'],
      modified: ['app/controller/application.rb'],
      removed: [],
    },
    {
      id: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
      message: 'fixed readme',
      title: 'fixed readme',
      timestamp: '2012-01-03T23:36:29+02:00',
      url: 'http://example.com/mike/diaspora/commit/da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
      author: { name: 'GitLab dev user', email: 'gitlabdev@dv6700.(none)' },
      added: ['CHANGELOG'],
      modified: ['app/controller/application.rb'],
      removed: [],
    },
  ],
  total_commits_count: 2,
};

export const GITLAB_BRANCH_DELETED = {
  ...GITLAB_PUSH,
  ref: 'refs/heads/feature',
  after: '0000000000000000000000000000000000000000',
  checkout_sha: null,
  commits: [],
  total_commits_count: 0,
};

export const GITLAB_TAG_PUSH = {
  ...GITLAB_PUSH,
  object_kind: 'tag_push',
  event_name: 'tag_push',
  before: '0000000000000000000000000000000000000000',
  after: '82b3d5ae55f7080f1e6022629cdb57bfae7cccc7',
  ref: 'refs/tags/v1.0.0',
  commits: [],
};

export const GITLAB_MERGE_REQUEST_OPENED = {
  object_kind: 'merge_request',
  event_type: 'merge_request',
  user: { id: 1, name: 'Administrator', username: 'root' },
  project: gitlabProject,
  object_attributes: {
    id: 99,
    iid: 1,
    target_branch: 'master',
    source_branch: 'ms-viewport',
    source_project_id: 14,
    target_project_id: 14,
    title: 'MS-Viewport',
    state: 'opened',
    merge_status: 'unchecked',
    url: 'http://example.com/diaspora/merge_requests/1',
    source: {
      ...gitlabProject,
      name: 'Awesome Project',
      web_url: 'http://example.com/awesome_space/awesome_project',
      git_http_url: 'http://example.com/awesome_space/awesome_project.git',
      git_ssh_url: 'git@example.com:awesome_space/awesome_project.git',
    },
    target: {
      ...gitlabProject,
      name: 'Awesome Project',
      web_url: 'http://example.com/awesome_space/awesome_project',
      git_http_url: 'http://example.com/awesome_space/awesome_project.git',
      git_ssh_url: 'git@example.com:awesome_space/awesome_project.git',
    },
    last_commit: {
      id: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
      message: 'fixed readme',
      title: 'fixed readme',
      timestamp: '2012-01-03T23:36:29+02:00',
      url: 'http://example.com/awesome_space/awesome_project/commits/da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
      author: { name: 'GitLab dev user', email: 'gitlabdev@dv6700.(none)' },
    },
    action: 'open',
  },
  repository: {
    name: 'Awesome Project',
    url: 'http://example.com/awesome_space/awesome_project.git',
    homepage: 'http://example.com/awesome_space/awesome_project',
  },
};

// ---- Gitea / Forgejo ----

const giteaRepository = {
  id: 140,
  owner: { id: 1, login: 'gitea', full_name: 'Gitea', email: 'someone@gitea.io', username: 'gitea' },
  name: 'webhooks',
  full_name: 'gitea/webhooks',
  description: '',
  private: false,
  fork: false,
  html_url: 'http://localhost:3000/gitea/webhooks',
  ssh_url: 'ssh://gitea@localhost:2222/gitea/webhooks.git',
  clone_url: 'http://localhost:3000/gitea/webhooks.git',
  default_branch: 'master',
};

export const GITEA_PUSH = {
  ref: 'refs/heads/develop',
  before: '28e1879d029cb852e4844d9c718537df08844e03',
  after: 'bffeb74224043ba2feb48d137756c8a9331c449a',
  compare_url: 'http://localhost:3000/gitea/webhooks/compare/28e1879d029cb852e4844d9c718537df08844e03...bffeb74224043ba2feb48d137756c8a9331c449a',
  commits: [
    {
      id: 'bffeb74224043ba2feb48d137756c8a9331c449a',
      message: 'Webhooks Yay!',
      url: 'http://localhost:3000/gitea/webhooks/commit/bffeb74224043ba2feb48d137756c8a9331c449a',
      author: { name: 'Gitea', email: 'someone@gitea.io', username: 'gitea' },
      committer: { name: 'Gitea', email: 'someone@gitea.io', username: 'gitea' },
      timestamp: '2017-03-13T13:52:11-04:00',
    },
  ],
  head_commit: {
    id: 'bffeb74224043ba2feb48d137756c8a9331c449a',
    message: 'Webhooks Yay!',
    url: 'http://localhost:3000/gitea/webhooks/commit/bffeb74224043ba2feb48d137756c8a9331c449a',
    author: { name: 'Gitea', email: 'someone@gitea.io', username: 'gitea' },
    committer: { name: 'Gitea', email: 'someone@gitea.io', username: 'gitea' },
    timestamp: '2017-03-13T13:52:11-04:00',
  },
  repository: giteaRepository,
  pusher: { id: 1, login: 'gitea', full_name: 'Gitea', email: 'someone@gitea.io', username: 'gitea' },
  sender: { id: 1, login: 'gitea', full_name: 'Gitea', email: 'someone@gitea.io', username: 'gitea' },
};

export const GITEA_BRANCH_DELETED = { ref: 'develop', ref_type: 'branch', pusher_type: 'user', repository: giteaRepository, sender: GITEA_PUSH.sender };

export const GITEA_PULL_REQUEST_SYNCHRONIZED = {
  action: 'synchronized',
  number: 7,
  pull_request: {
    id: 55,
    url: 'http://localhost:3000/gitea/webhooks/pulls/7',
    number: 7,
    title: 'Add a page',
    state: 'open',
    merged: false,
    head: { label: 'feature/page', ref: 'feature/page', sha: 'bffeb74224043ba2feb48d137756c8a9331c449a', repo_id: 140, repo: giteaRepository },
    base: { label: 'master', ref: 'master', sha: '28e1879d029cb852e4844d9c718537df08844e03', repo_id: 140, repo: giteaRepository },
  },
  repository: giteaRepository,
  sender: GITEA_PUSH.sender,
};
