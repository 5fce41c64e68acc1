import { LogOut, Monitor, Moon, ShieldCheck, Sun, UserRound } from 'lucide-react';
import { Button, Header, Menu, MenuItem, MenuSection, MenuTrigger, Popover, Separator } from 'react-aria-components';

import { setTheme, type ThemeChoice, useTheme } from '../../theme/theme';

const THEMES: { id: ThemeChoice; label: string; Icon: typeof Sun }[] = [
  { id: 'system', label: 'System theme', Icon: Monitor },
  { id: 'light', label: 'Light theme', Icon: Sun },
  { id: 'dark', label: 'Dark theme', Icon: Moon },
];

/** The header's account menu: who is signed in, their pages, the theme, and signing out. */
export function AccountMenu({ email, signingOut, onSignOut }: { email: string | undefined; signingOut: boolean; onSignOut: () => void }) {
  const theme = useTheme();
  return (
    <MenuTrigger>
      <Button className="account-button" aria-label="Account menu">
        <span className="avatar" aria-hidden="true">
          {(email ?? '?').slice(0, 1).toUpperCase()}
        </span>
        <span className="account-email hide-narrow">{email}</span>
      </Button>
      <Popover placement="bottom end" className="popover">
        <Menu className="menu" aria-label="Account" disabledKeys={signingOut ? ['sign-out'] : []}>
          <MenuSection>
            <Header className="menu-header">
              <span className="muted">Signed in as</span>
              <span className="menu-email">{email}</span>
            </Header>
            <MenuItem className="menu-item" href="/account" textValue="Account">
              <UserRound size={16} aria-hidden="true" /> Account
            </MenuItem>
            <MenuItem className="menu-item" href="/security" textValue="Security">
              <ShieldCheck size={16} aria-hidden="true" /> Security
            </MenuItem>
          </MenuSection>
          <Separator className="menu-separator" />
          <MenuSection
            selectionMode="single"
            selectedKeys={[theme]}
            onSelectionChange={(keys) => {
              const [chosen] = [...(keys as Set<ThemeChoice>)];
              if (chosen) setTheme(chosen);
            }}
            disallowEmptySelection
          >
            <Header className="menu-header muted">Theme</Header>
            {THEMES.map(({ id, label, Icon }) => (
              <MenuItem key={id} id={id} className="menu-item" textValue={label}>
                <Icon size={16} aria-hidden="true" /> {label}
              </MenuItem>
            ))}
          </MenuSection>
          <Separator className="menu-separator" />
          <MenuItem id="sign-out" className="menu-item" onAction={onSignOut} textValue="Sign out">
            <LogOut size={16} aria-hidden="true" /> Sign out
          </MenuItem>
        </Menu>
      </Popover>
    </MenuTrigger>
  );
}
