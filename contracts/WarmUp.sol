// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// What flashchain runs once in a scratch chain after it starts (src/runtime/warmUp.ts), so that V8 has compiled
/// the EVM's common paths before the first transaction that matters: a token's balances and allowances (mapping
/// slots, storage writes, events, custom errors), and one contract calling another, with return data, as a router
/// or a pool calls a token. It holds nothing and is never deployed on a chain a user sees.
contract WarmUp {
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    error InsufficientBalance(address from, uint256 balance, uint256 needed);
    error InsufficientAllowance(address spender, uint256 allowance, uint256 needed);

    constructor(uint256 supply) {
        balanceOf[msg.sender] = supply;
        emit Transfer(address(0), msg.sender, supply);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed < value) revert InsufficientAllowance(msg.sender, allowed, value);
        allowance[from][msg.sender] = allowed - value;
        _transfer(from, to, value);
        return true;
    }

    /// Pulls `value` of `token` from the caller and sends it on to `to`, as a router does; returns what `to` holds.
    function relay(WarmUp token, address to, uint256 value) external returns (uint256) {
        require(token.transferFrom(msg.sender, address(this), value), "pull");
        require(token.transfer(to, value), "push");
        return token.balanceOf(to);
    }

    function _transfer(address from, address to, uint256 value) private {
        uint256 balance = balanceOf[from];
        if (balance < value) revert InsufficientBalance(from, balance, value);
        unchecked {
            balanceOf[from] = balance - value;
            balanceOf[to] += value;
        }
        emit Transfer(from, to, value);
    }
}
